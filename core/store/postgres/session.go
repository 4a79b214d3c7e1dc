package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/store"
)

// SessionStore keeps agent sessions in the database (table
// starweaver_sessions, concern "session"): an [session.Store] for
// Builder.SessionStore, shared by every worker connected to the database.
// A save is one INSERT (creating) or one UPDATE guarded by the expected
// revision, so of two workers resuming one waiting run exactly one claims
// it. It is safe for concurrent use.
type SessionStore struct {
	db *DB
}

var _ session.Store = (*SessionStore)(nil)

// NewSessionStore returns the session store of db. Closing db closes it.
func NewSessionStore(db *DB) *SessionStore { return &SessionStore{db: db} }

// Load returns the session's state and revision; an unknown id fails with
// store.ErrNotFound.
func (s *SessionStore) Load(ctx context.Context, id string) (session.Record, error) {
	var rec session.Record
	var rev int64
	err := s.db.Pool().QueryRow(ctx,
		`SELECT revision, state FROM starweaver_sessions WHERE session_id = $1`, id).Scan(&rev, &rec.State)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Record{}, fmt.Errorf("postgres: session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return session.Record{}, fmt.Errorf("postgres: load session %q: %w", id, errors.Join(store.ErrUnavailable, redact(err)))
	}
	rec.Revision = uint64(rev)
	return rec, nil
}

// Save stores state if the session is still at revision expected (0:
// creates it), as session.Store.Save says; a lost compare-and-swap,
// or a create that finds the session there, fails with store.ErrConflict.
func (s *SessionStore) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	if state == nil {
		state = []byte{} // the column is NOT NULL
	}
	now := time.Now().UnixMilli()
	if expected == 0 {
		_, err := s.db.Pool().Exec(ctx, `INSERT INTO starweaver_sessions
			(session_id, revision, state, created_at_ms, updated_at_ms) VALUES ($1, 1, $2, $3, $3)`, id, state, now)
		if uniqueViolation(err) {
			return 0, fmt.Errorf("postgres: create session %q: it exists: %w", id, store.ErrConflict)
		}
		if err != nil {
			return 0, fmt.Errorf("postgres: create session %q: %w", id, errors.Join(store.ErrUnavailable, redact(err)))
		}
		return 1, nil
	}
	if expected >= math.MaxInt64 {
		return 0, fmt.Errorf("postgres: save session %q: no revision %d: %w", id, expected, store.ErrConflict)
	}
	tag, err := s.db.Pool().Exec(ctx, `UPDATE starweaver_sessions
		SET revision = revision + 1, state = $1, updated_at_ms = $2
		WHERE session_id = $3 AND revision = $4`, state, now, id, int64(expected))
	if err != nil {
		return 0, fmt.Errorf("postgres: save session %q: %w", id, errors.Join(store.ErrUnavailable, redact(err)))
	}
	if tag.RowsAffected() == 0 {
		return 0, fmt.Errorf("postgres: save session %q: it is no longer at revision %d: %w", id, expected, store.ErrConflict)
	}
	return expected + 1, nil
}
