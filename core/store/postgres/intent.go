package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/store"
)

// IntentJournal keeps the intent journal (core/intent) in the
// starweaver_intent_journal table (concern "intent"), shared by every
// worker connected to the database. It implements intent.Journal.
//
// An append is one INSERT ... ON CONFLICT DO NOTHING: of workers racing
// to append one key exactly one writes, and the others read the winner
// back (the insert waits for a concurrent one to commit, so the winner is
// visible by then). It is safe for concurrent use.
type IntentJournal struct {
	db *DB
}

var _ intent.Journal = (*IntentJournal)(nil)

// NewIntentJournal returns the intent journal of db. Closing db closes it.
func NewIntentJournal(db *DB) *IntentJournal { return &IntentJournal{db: db} }

// Append implements intent.Journal.
func (j *IntentJournal) Append(ctx context.Context, e intent.Entry) (intent.Entry, bool, error) {
	if err := intent.CheckEntry(e); err != nil {
		return intent.Entry{}, false, err
	}
	var stream *string
	if e.Stream != "" {
		stream = &e.Stream
	}
	tag, err := j.db.Pool().Exec(ctx, `INSERT INTO starweaver_intent_journal
		(entry_key, stream, seq, body, created_at_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
		e.Key, stream, e.Seq, string(e.Body), time.Now().UnixMilli())
	if err != nil {
		return intent.Entry{}, false, fmt.Errorf("postgres: append intent entry %q: %w", e.Key, errors.Join(store.ErrUnavailable, redact(err)))
	}
	if tag.RowsAffected() == 1 {
		return e, false, nil
	}
	cur, err := j.get(ctx, e.Key)
	if errors.Is(err, intent.ErrNotFound) {
		return intent.Entry{}, false, fmt.Errorf("postgres: append intent entry %q: %q position %d is taken: %w", e.Key, e.Stream, e.Seq, intent.ErrConflict)
	}
	if err != nil {
		return intent.Entry{}, false, fmt.Errorf("postgres: append intent entry %q: %w", e.Key, err)
	}
	return cur, true, nil
}

// Get implements intent.Journal.
func (j *IntentJournal) Get(ctx context.Context, key string) (intent.Entry, error) {
	e, err := j.get(ctx, key)
	if err != nil {
		return intent.Entry{}, fmt.Errorf("postgres: intent entry %q: %w", key, err)
	}
	return e, nil
}

func (j *IntentJournal) get(ctx context.Context, key string) (intent.Entry, error) {
	var e intent.Entry
	var stream *string
	var body string
	err := j.db.Pool().QueryRow(ctx, `SELECT entry_key, stream, seq, body FROM starweaver_intent_journal WHERE entry_key = $1`, key).
		Scan(&e.Key, &stream, &e.Seq, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return intent.Entry{}, intent.ErrNotFound
	}
	if err != nil {
		return intent.Entry{}, errors.Join(store.ErrUnavailable, redact(err))
	}
	if stream != nil {
		e.Stream = *stream
	}
	e.Body = []byte(body)
	return e, nil
}

// Stream implements intent.Journal.
func (j *IntentJournal) Stream(ctx context.Context, stream string) ([]intent.Entry, error) {
	rows, err := j.db.Pool().Query(ctx, `SELECT entry_key, seq, body FROM starweaver_intent_journal WHERE stream = $1 ORDER BY seq`, stream)
	if err != nil {
		return nil, fmt.Errorf("postgres: intent stream %q: %w", stream, errors.Join(store.ErrUnavailable, redact(err)))
	}
	defer rows.Close()
	var out []intent.Entry
	for rows.Next() {
		e := intent.Entry{Stream: stream}
		var body string
		if err := rows.Scan(&e.Key, &e.Seq, &body); err != nil {
			return nil, fmt.Errorf("postgres: intent stream %q: %w", stream, errors.Join(store.ErrUnavailable, redact(err)))
		}
		e.Body = []byte(body)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: intent stream %q: %w", stream, errors.Join(store.ErrUnavailable, redact(err)))
	}
	return out, nil
}
