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
