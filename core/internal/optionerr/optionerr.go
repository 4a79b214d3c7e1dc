// Package optionerr is the error of an option value out of its range, as
// the constructors of core report it: its message is the rule whole, as a
// host shows it ("shell: max_processes must be positive, got 0"), and it
// matches its package's sentinel with [errors.Is], so that a host maps
// every such failure of a package to one slug without rewriting the text.
package optionerr

import "fmt"

// Error is an out-of-range option: Error returns the message, Unwrap the
// sentinel of the package that refused the value.
type Error struct {
	sentinel error
	msg      string
}

// New returns an *Error matching sentinel whose message is the format's.
func New(sentinel error, format string, a ...any) error {
	return &Error{sentinel: sentinel, msg: fmt.Sprintf(format, a...)}
}

func (e *Error) Error() string { return e.msg }

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.sentinel }

// Positive is one number a host stated for an option whose zero means "the
// default" in core: nil keeps what Into holds, a given value must be
// positive.
type Positive[T ~int | ~int64] struct {
	Name  string
	Value *T
	Into  *T
}

// SetPositive checks the given values in order and, only when all are
// positive, sets each into its Into: an option refused leaves every
// destination unchanged. The first value that is not positive is reported
// through fail, which words the error.
func SetPositive[T ~int | ~int64](fields []Positive[T], fail func(name string, v T) error) error {
	for _, f := range fields {
		if f.Value != nil && *f.Value <= 0 {
			return fail(f.Name, *f.Value)
		}
	}
	for _, f := range fields {
		if f.Value != nil {
			*f.Into = *f.Value
		}
	}
	return nil
}
