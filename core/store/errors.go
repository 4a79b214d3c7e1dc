package store

import "github.com/starweaver-go/starweaver/core/internal/storeerr"

// Sentinel errors of every store. Implementations wrap them with context;
// messages never include a DSN, a password or stored data.
var (
	// ErrNotFound: the record does not exist (or is not in the caller's scope).
	ErrNotFound = storeerr.ErrNotFound
	// ErrConflict: a compare-and-swap lost (the record changed since it was
	// read) or a create found the record already there.
	ErrConflict = storeerr.ErrConflict
	// ErrUnavailable: the backend could not be reached or failed.
	ErrUnavailable = storeerr.ErrUnavailable
	// ErrClosed: the store was closed.
	ErrClosed = storeerr.ErrClosed
)

// Specialize returns an error reading msg that also matches general with
// errors.Is: a package's own sentinel for a store-wide condition (say
// "effect: not found" for ErrNotFound), so that callers can test at
// either level.
func Specialize(msg string, general error) error { return storeerr.Specialize(msg, general) }
