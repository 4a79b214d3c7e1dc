package artifact

import (
	"errors"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

// ErrInvalidConfig is matched by the error of a Config out of its range
// (see [Config.Validate]).
var ErrInvalidConfig = errors.New("artifact: invalid configuration")

// Config configures a store; every Store implementation of this module
// takes one, and the zero Config means the defaults.
type Config struct {
	// MaxBytes is the largest artifact Put accepts (0: [DefaultMaxBytes]);
	// larger writes fail with ErrInvalidInput. Artifacts already stored
	// stay readable when the limit is lowered. It must not be negative.
	MaxBytes int64
	// Now is the clock (nil: [time.Now]): it stamps CreatedAtUnixMS and
	// decides expiry in Get. Tests set it to decide creation times and
	// expiry.
	Now func() time.Time
}

// Validate reports a Config out of its range: a negative MaxBytes fails
// with an error that matches [ErrInvalidConfig] and whose message is the
// rule as hosts show it ("artifact store max_bytes must be positive, got
// -1"; 0 stays allowed, as the default). A host checks its Config with
// Validate before giving it to a store, whose constructor panics on it.
func (c Config) Validate() error {
	if c.MaxBytes < 0 {
		return optionerr.New(ErrInvalidConfig, "artifact store max_bytes must be positive, got %d", c.MaxBytes)
	}
	return nil
}

// Normalised returns c with its unset fields set to the defaults
// ([DefaultMaxBytes] and [time.Now]); store implementations keep what it
// returns. It panics if MaxBytes is negative (see Validate).
func (c Config) Normalised() Config {
	if c.MaxBytes < 0 {
		panic("artifact: Config.MaxBytes must not be negative")
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// NowUnixMS returns the clock's time in milliseconds since the Unix epoch.
func (c Config) NowUnixMS() int64 { return c.Now().UnixMilli() }
