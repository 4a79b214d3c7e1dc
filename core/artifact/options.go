package artifact

import "time"

// Option configures a store; every Store implementation of this module
// accepts the same options.
type Option func(*Config)

// Config is the configuration a store was built with. Store
// implementations get it from [NewConfig]; users pass Options.
type Config struct {
	// MaxBytes is the largest artifact Put accepts.
	MaxBytes int64
	// Now is the clock: it stamps CreatedAtUnixMS and decides expiry in Get.
	Now func() time.Time
}

// NewConfig applies opts over the defaults: [DefaultMaxBytes] and
// [time.Now].
func NewConfig(opts ...Option) Config {
	c := Config{MaxBytes: DefaultMaxBytes, Now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// NowUnixMS returns the clock's time in milliseconds since the Unix epoch.
func (c Config) NowUnixMS() int64 { return c.Now().UnixMilli() }

// WithMaxBytes sets the largest artifact Put accepts; larger writes fail
// with ErrInvalidInput. Artifacts already stored stay readable when the
// limit is lowered. It panics unless n is positive.
func WithMaxBytes(n int64) Option {
	if n <= 0 {
		panic("artifact: WithMaxBytes: the limit must be positive")
	}
	return func(c *Config) { c.MaxBytes = n }
}

// WithClock replaces time.Now, so that tests decide creation times and
// expiry. It panics if now is nil.
func WithClock(now func() time.Time) Option {
	if now == nil {
		panic("artifact: WithClock: nil clock")
	}
	return func(c *Config) { c.Now = now }
}
