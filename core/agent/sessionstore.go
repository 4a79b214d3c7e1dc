package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/starweaver-go/starweaver/core/store"
)

// SessionStore keeps sessions' state by session id, so that a session
// outlives the process that ran it and several workers can share it (see
// Builder.SessionStore). The state is opaque to the store: it is what
// ExportState produces, signed when the agent has a state key.
//
// Save is a compare-and-swap on the record's revision, which is what lets
// a waiting run be resumed at most once across processes. Implementations
// must be safe for concurrent use, and must pass the conformance suite in
// core/agent/sessionstoretest. The SQLite and PostgreSQL stores live in
// core/store/sqlite and core/store/postgres; MemorySessionStore keeps
// records in memory.
type SessionStore interface {
	// Load returns the session's record. An unknown id fails with an error
	// wrapping store.ErrNotFound.
	Load(ctx context.Context, id string) (StoredSession, error)
	// Save stores state as the session's record if the record's revision
	// is still expected, and returns the new revision (always greater than
	// expected). expected 0 creates the record: it fails if the record
	// exists. Any other mismatch (a record that changed since it was read,
	// or that no longer exists) fails with an error wrapping
	// store.ErrConflict and leaves the record unchanged.
	Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error)
}

// StoredSession is a session's record in a SessionStore.
type StoredSession struct {
	// State is the session's state as ExportState produces it.
	State []byte
	// Revision counts the saves of the record; the first is 1.
	Revision uint64
}

// SessionStoreFuncs is an adapter to allow the use of ordinary functions
// as a SessionStore (a host's own storage, a test double). Both functions
// must be set and follow the contract of SessionStore.
type SessionStoreFuncs struct {
	LoadFunc func(ctx context.Context, id string) (StoredSession, error)
	SaveFunc func(ctx context.Context, id string, state []byte, expected uint64) (uint64, error)
}

// Load calls f.LoadFunc.
func (f SessionStoreFuncs) Load(ctx context.Context, id string) (StoredSession, error) {
	return f.LoadFunc(ctx, id)
}

// Save calls f.SaveFunc.
func (f SessionStoreFuncs) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	return f.SaveFunc(ctx, id, state, expected)
}

// Errors of sessions kept in a SessionStore. Those of a session's state
// (conflicts, claimed resumes) are ErrState too, so that hosts handling
// ErrState refuse them without knowing about stores.
var (
	// ErrSessionNotFound: OpenSession was given an id the store does not
	// hold. The error wraps the store's, so it matches store.ErrNotFound
	// too.
	ErrSessionNotFound = errors.New("agent: session not found")
	// ErrSessionConflict: the session's record changed in the store since
	// this Session was loaded or last saved (another worker ran or resumed
	// it), so this Session's run or resume was refused, or its outcome was
	// not saved. Load the session again with OpenSession. It matches
	// ErrState, and wraps store.ErrConflict when a save lost.
	ErrSessionConflict = fmt.Errorf("%w: the session changed in the session store", ErrState)
	// ErrResumeClaimed: a resume of the session's waiting run was claimed
	// in the store and has not saved its outcome. Its worker is still
	// running it, or stopped before it finished; Session.ClaimedResume
	// describes the claim and Session.AbandonResume repairs the session
	// after a worker stopped. It matches ErrState.
	ErrResumeClaimed = fmt.Errorf("%w: a resume of the session's waiting run was claimed and has not finished", ErrState)
)

// MemorySessionStore is a SessionStore in memory, for tests and for
// sessions that must outlive their Session objects but not the process.
// The zero value is an empty store, safe for concurrent use.
type MemorySessionStore struct {
	mu      sync.Mutex
	records map[string]StoredSession
}

var _ SessionStore = (*MemorySessionStore)(nil)

// Load returns a copy of the session's record.
func (m *MemorySessionStore) Load(ctx context.Context, id string) (StoredSession, error) {
	if err := ctx.Err(); err != nil {
		return StoredSession{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok {
		return StoredSession{}, fmt.Errorf("memory session store: session %q: %w", id, store.ErrNotFound)
	}
	r.State = append([]byte(nil), r.State...)
	return r, nil
}

// Save stores a copy of state (see SessionStore.Save).
func (m *MemorySessionStore) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	switch {
	case !ok && expected != 0:
		return 0, fmt.Errorf("memory session store: session %q was not found at revision %d: %w", id, expected, store.ErrConflict)
	case ok && r.Revision != expected:
		return 0, fmt.Errorf("memory session store: session %q is at revision %d, not %d: %w", id, r.Revision, expected, store.ErrConflict)
	}
	if m.records == nil {
		m.records = map[string]StoredSession{}
	}
	m.records[id] = StoredSession{State: append([]byte(nil), state...), Revision: expected + 1}
	return expected + 1, nil
}
