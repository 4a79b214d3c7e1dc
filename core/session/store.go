package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Store keeps sessions' state by session id, so that a session outlives
// the process that ran it and several workers can share it (see the
// agent's Builder.SessionStore). The state is opaque to the store: it is
// what the agent's ExportState produces, signed when the agent has a
// state key.
//
// Save is a compare-and-swap on the record's revision, which is what lets
// a waiting run be resumed at most once across processes. Implementations
// must be safe for concurrent use, and must pass the conformance suite in
// core/session/sessiontest. The SQLite and PostgreSQL stores live in
// core/store/sqlite and core/store/postgres; MemoryStore keeps records in
// memory.
type Store interface {
	// Load returns the session's record. An unknown id fails with an error
	// wrapping store.ErrNotFound.
	Load(ctx context.Context, id string) (Record, error)
	// Save stores state as the session's record if the record's revision
	// is still expected, and returns the new revision (always greater than
	// expected). expected 0 creates the record: it fails if the record
	// exists. Any other mismatch (a record that changed since it was read,
	// or that no longer exists) fails with an error wrapping
	// store.ErrConflict and leaves the record unchanged.
	Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error)
}

// Record is a session's record in a Store.
type Record struct {
	// State is the session's state as the agent's ExportState produces it.
	State []byte
	// Revision counts the saves of the record; the first is 1.
	Revision uint64
}

// StoreFuncs is an adapter to allow the use of ordinary functions as a
// Store (a host's own storage, a test double). Both functions must be set
// and follow the contract of Store.
type StoreFuncs struct {
	LoadFunc func(ctx context.Context, id string) (Record, error)
	SaveFunc func(ctx context.Context, id string, state []byte, expected uint64) (uint64, error)
}

// Load calls f.LoadFunc.
func (f StoreFuncs) Load(ctx context.Context, id string) (Record, error) {
	return f.LoadFunc(ctx, id)
}

// Save calls f.SaveFunc.
func (f StoreFuncs) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	return f.SaveFunc(ctx, id, state, expected)
}

// MemoryStore is a Store in memory, for tests and for sessions that must
// outlive their Session objects but not the process. The zero value is an
// empty store, safe for concurrent use.
type MemoryStore struct {
	mu      sync.Mutex
	records map[string]Record
}

var _ Store = (*MemoryStore)(nil)

// Load returns a copy of the session's record.
func (m *MemoryStore) Load(ctx context.Context, id string) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok {
		return Record{}, fmt.Errorf("memory session store: session %q: %w", id, storeerr.ErrNotFound)
	}
	r.State = append([]byte(nil), r.State...)
	return r, nil
}

// Save stores a copy of state (see Store.Save).
func (m *MemoryStore) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	switch {
	case !ok && expected != 0:
		return 0, fmt.Errorf("memory session store: session %q was not found at revision %d: %w", id, expected, storeerr.ErrConflict)
	case ok && r.Revision != expected:
		return 0, fmt.Errorf("memory session store: session %q is at revision %d, not %d: %w", id, r.Revision, expected, storeerr.ErrConflict)
	}
	if m.records == nil {
		m.records = map[string]Record{}
	}
	m.records[id] = Record{State: append([]byte(nil), state...), Revision: expected + 1}
	return expected + 1, nil
}
