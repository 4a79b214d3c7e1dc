package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/store"
)

// SessionStore keeps agent sessions in the database (table
// starweaver_sessions, concern "session"): an [session.Store] for
// Builder.SessionStore. Each save is one statement that compares the
// revision and swaps the state, so processes sharing the file resume a
// waiting run at most once. It is safe for concurrent use.
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
	err := s.db.Reader().QueryRowContext(ctx,
		`SELECT revision, state FROM starweaver_sessions WHERE session_id = ?`, id).Scan(&rev, &rec.State)
	if errors.Is(err, sql.ErrNoRows) {
		return session.Record{}, fmt.Errorf("sqlite: session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return session.Record{}, fmt.Errorf("sqlite: load session %q: %w", id, s.db.explain(err))
	}
	rec.Revision = uint64(rev)
	return rec, nil
}

// Save stores state if the session is still at revision expected (0:
// creates it), as session.Store.Save says; a lost compare-and-swap
// fails with store.ErrConflict.
func (s *SessionStore) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	if state == nil {
		state = []byte{} // the column is NOT NULL
	}
	now := time.Now().UnixMilli()
	var res sql.Result
	var err error
	switch {
	case expected == 0:
		res, err = s.db.Writer().ExecContext(ctx, `INSERT INTO starweaver_sessions
			(session_id, revision, state, created_at_ms, updated_at_ms) VALUES (?, 1, ?, ?, ?)
			ON CONFLICT (session_id) DO NOTHING`, id, state, now, now)
	case expected >= math.MaxInt64:
		return 0, fmt.Errorf("sqlite: save session %q: no revision %d: %w", id, expected, store.ErrConflict)
	default:
		res, err = s.db.Writer().ExecContext(ctx, `UPDATE starweaver_sessions
			SET revision = revision + 1, state = ?, updated_at_ms = ?
			WHERE session_id = ? AND revision = ?`, state, now, id, int64(expected))
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: save session %q: %w", id, s.db.explain(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: save session %q: %w", id, errors.Join(store.ErrUnavailable, err))
	}
	if n > 0 {
		// The commit succeeded; make sure it went where loads will read it.
		if err := s.db.checkFiles(); err != nil {
			return 0, fmt.Errorf("sqlite: save session %q: %w", id, err)
		}
	}
	if n == 0 {
		if expected == 0 {
			return 0, fmt.Errorf("sqlite: create session %q: it exists: %w", id, store.ErrConflict)
		}
		return 0, fmt.Errorf("sqlite: save session %q: it is no longer at revision %d: %w", id, expected, store.ErrConflict)
	}
	return expected + 1, nil
}
