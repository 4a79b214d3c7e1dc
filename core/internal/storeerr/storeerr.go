// Package storeerr holds the sentinel errors every durable store shares
// (core/store re-exports them as store.ErrNotFound and the others) and
// Specialize, below the packages whose value types refine them.
package storeerr

import "errors"

// Sentinel errors of every store. Implementations wrap them with context;
// messages never include a DSN, a password or stored data.
var (
	// ErrNotFound: the record does not exist (or is not in the caller's scope).
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a compare-and-swap lost (the record changed since it was
	// read) or a create found the record already there.
	ErrConflict = errors.New("store: conflict")
	// ErrUnavailable: the backend could not be reached or failed.
	ErrUnavailable = errors.New("store: unavailable")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
)

// Specialize returns an error reading msg that also matches general with
// errors.Is: a package's own sentinel for a store-wide condition (say
// "effect: not found" for ErrNotFound), so that callers can test at
// either level.
func Specialize(msg string, general error) error { return &specialized{msg, general} }

type specialized struct {
	msg     string
	general error
}

func (e *specialized) Error() string { return e.msg }
func (e *specialized) Unwrap() error { return e.general }
