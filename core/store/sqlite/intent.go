package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/store"
)

// IntentJournal keeps the intent journal (core/intent) in the
// starweaver_intent_journal table (concern "intent"). It implements
// intent.Journal.
//
// An append is one INSERT ... ON CONFLICT DO NOTHING on the single writer
// connection, so of several appends of one key exactly one writes; a
// losing append reads the winner back. It is safe for concurrent use, and
// several IntentJournals (and processes) may share one database file.
type IntentJournal struct {
	db *DB
}

var _ intent.Journal = (*IntentJournal)(nil)

// NewIntentJournal returns the intent journal kept in db.
func NewIntentJournal(db *DB) *IntentJournal { return &IntentJournal{db: db} }

// Append implements intent.Journal.
func (j *IntentJournal) Append(ctx context.Context, e intent.Entry) (intent.Entry, bool, error) {
	if err := intent.CheckEntry(e); err != nil {
		return intent.Entry{}, false, err
	}
	var stream any
	if e.Stream != "" {
		stream = e.Stream
	}
	res, err := j.db.Writer().ExecContext(ctx, `INSERT INTO starweaver_intent_journal
		(entry_key, stream, seq, body, created_at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		e.Key, stream, e.Seq, string(e.Body), time.Now().UnixMilli())
	if err != nil {
		return intent.Entry{}, false, fmt.Errorf("sqlite: append intent entry %q: %w", e.Key, j.db.explain(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return intent.Entry{}, false, fmt.Errorf("sqlite: append intent entry %q: %w", e.Key, j.db.explain(err))
	} else if n == 1 {
		return e, false, nil
	}
	// The key or the position is taken. Entries are never deleted, so
	// reading the key on the writer (after the insert) tells which.
	cur, err := scanIntentEntry(j.db.Writer().QueryRowContext(ctx, `SELECT entry_key, stream, seq, body FROM starweaver_intent_journal WHERE entry_key = ?`, e.Key))
	if errors.Is(err, intent.ErrNotFound) {
		return intent.Entry{}, false, fmt.Errorf("sqlite: append intent entry %q: %q position %d is taken: %w", e.Key, e.Stream, e.Seq, intent.ErrConflict)
	}
	if err != nil {
		return intent.Entry{}, false, fmt.Errorf("sqlite: append intent entry %q: %w", e.Key, err)
	}
	return cur, true, nil
}

// Get implements intent.Journal.
func (j *IntentJournal) Get(ctx context.Context, key string) (intent.Entry, error) {
	e, err := scanIntentEntry(j.db.Reader().QueryRowContext(ctx, `SELECT entry_key, stream, seq, body FROM starweaver_intent_journal WHERE entry_key = ?`, key))
	if err != nil {
		return intent.Entry{}, fmt.Errorf("sqlite: intent entry %q: %w", key, err)
	}
	return e, nil
}

// Stream implements intent.Journal.
func (j *IntentJournal) Stream(ctx context.Context, stream string) ([]intent.Entry, error) {
	rows, err := j.db.Reader().QueryContext(ctx, `SELECT entry_key, stream, seq, body FROM starweaver_intent_journal WHERE stream = ? ORDER BY seq`, stream)
	if err != nil {
		return nil, fmt.Errorf("sqlite: intent stream %q: %w", stream, errors.Join(store.ErrUnavailable, err))
	}
	defer rows.Close()
	var out []intent.Entry
	for rows.Next() {
		var e intent.Entry
		var s sql.NullString
		var body []byte
		if err := rows.Scan(&e.Key, &s, &e.Seq, &body); err != nil {
			return nil, fmt.Errorf("sqlite: intent stream %q: %w", stream, errors.Join(store.ErrUnavailable, err))
		}
		e.Stream, e.Body = s.String, body
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: intent stream %q: %w", stream, errors.Join(store.ErrUnavailable, err))
	}
	return out, nil
}

func scanIntentEntry(row *sql.Row) (intent.Entry, error) {
	var e intent.Entry
	var s sql.NullString
	var body []byte
	if err := row.Scan(&e.Key, &s, &e.Seq, &body); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return intent.Entry{}, intent.ErrNotFound
		}
		return intent.Entry{}, errors.Join(store.ErrUnavailable, err)
	}
	e.Stream, e.Body = s.String, body
	return e, nil
}
