package tool

import (
	"errors"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// ErrInvalidOption is wrapped by every out-of-range retry budget or
// timeout, wherever it is given (tool, toolset, agent), so one rule and one
// message cover them all. The option checks of toolsets and catalogues
// (toolset.LifecycleTimeouts, toolset.CheckPrefix, catalog.Options.Validate)
// match it too.
var ErrInvalidOption = errors.New("tool: invalid option")

// CheckMaxRetries reports whether n is a valid retry budget: it must not be
// negative (0 means no retry).
func CheckMaxRetries(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: max_retries must not be negative, got %d", ErrInvalidOption, n)
	}
	return nil
}

// CheckTimeout reports whether d is a valid timeout: it must be positive
// (leaving a timeout unset is how a level inherits the one above it).
func CheckTimeout(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%w: timeout_ms must be positive, got %d", ErrInvalidOption, d.Milliseconds())
	}
	return nil
}

// SetMaxRetries checks n, then sets it as the retry budget of c and records
// it under [MetaMaxRetries] in md (which must not be nil). On failure c
// and md are unchanged.
func (c *Config) SetMaxRetries(md map[string]any, n int) error {
	if err := CheckMaxRetries(n); err != nil {
		return err
	}
	c.MaxRetries = &n
	md[MetaMaxRetries] = n
	return nil
}

// CheckEffect reports whether c is an effect class (or undeclared).
func CheckEffect(c EffectClass) error {
	if !c.Valid() {
		return fmt.Errorf("%w: unknown effect %q (want one of pure, read_only, idempotent_write, non_idempotent_write, destructive, unknown)", ErrInvalidOption, string(c))
	}
	return nil
}

// SetEffect checks cls, then sets it as the effect class of c and records
// it under [MetaEffect] in md (which must not be nil). On failure c and md
// are unchanged.
func (c *Config) SetEffect(md map[string]any, cls EffectClass) error {
	if err := CheckEffect(cls); err != nil {
		return err
	}
	c.Effect = cls
	if cls == effectclass.ClassUndeclared {
		delete(md, MetaEffect)
	} else {
		md[MetaEffect] = string(cls)
	}
	return nil
}

// SetTimeout checks d, then sets it as the timeout of c and records it in
// milliseconds under [MetaTimeoutMS] in md (which must not be nil). On
// failure c and md are unchanged.
func (c *Config) SetTimeout(md map[string]any, d time.Duration) error {
	if err := CheckTimeout(d); err != nil {
		return err
	}
	c.Timeout = d
	md[MetaTimeoutMS] = d.Milliseconds()
	return nil
}
