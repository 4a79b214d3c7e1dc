package effect

import (
	"context"
	"fmt"
)

// CreateOnly is the expected revision that makes CompareAndSwap create a
// record: it succeeds only if neither the record's id nor its key exists.
const CreateOnly = ^uint64(0)

// Store keeps effect records: the journal's source of truth. Every change
// is a compare-and-swap on the record's revision, so of several workers
// racing on one effect exactly one wins each step, and a stale worker
// only loses the swap.
//
// Implementations must be safe for concurrent use, and must copy what
// they keep and return (a caller may reuse the record it passed).
// MemoryStore, store/sqlite.EffectStore and store/postgres.EffectStore
// implement it; effecttest.Run checks an implementation.
type Store interface {
	// Load returns the record whose effect id is id, or an error wrapping
	// ErrNotFound.
	Load(ctx context.Context, id string) (Record, error)
	// FindByKey returns the record whose idempotency key is key, or an
	// error wrapping ErrNotFound (always, for the empty key).
	FindByKey(ctx context.Context, key string) (Record, error)
	// CompareAndSwap writes rec, keyed by rec.Request.ID:
	//   - expected == CreateOnly creates it. rec.Revision must be 0. If a
	//     record with that id exists, or another record owns its key, it
	//     fails with ErrConflict.
	//   - otherwise it replaces the record whose revision is expected.
	//     rec.Revision must be expected+1. A missing record is
	//     ErrNotFound; another revision, or another key than the stored
	//     one (keys are fixed at creation), is ErrConflict.
	// A record that fails Validate, or a revision that breaks these rules,
	// is ErrInvalid, and nothing is written.
	CompareAndSwap(ctx context.Context, rec Record, expected uint64) error
}

// CheckSwap checks rec and the revision rules of a compare-and-swap (see
// Store) before a store touches its data: a nil result means only the
// stored state can make the swap fail. Store implementations call it.
func CheckSwap(rec Record, expected uint64) error {
	if err := rec.Validate(); err != nil {
		return err
	}
	switch {
	case expected == CreateOnly && rec.Revision != 0:
		return fmt.Errorf("%w: effect %q: a created record has revision 0, not %d", ErrInvalid, rec.Request.ID, rec.Revision)
	case expected != CreateOnly && rec.Revision != expected+1:
		return fmt.Errorf("%w: effect %q: a swap from revision %d writes revision %d, not %d", ErrInvalid, rec.Request.ID, expected, expected+1, rec.Revision)
	}
	return nil
}
