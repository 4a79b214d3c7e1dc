package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Entry is one record of a Journal: written once under its Key, never
// changed, never deleted. Entries that belong together (a process's
// commands, a scope's parent-end plan) share a Stream, where Seq orders
// them.
type Entry struct {
	// Key names the entry; it is unique in a journal.
	Key string `json:"key"`
	// Stream, when not empty, is the entry's stream; Seq is its position
	// there (from 0), unique in the stream.
	Stream string `json:"stream,omitempty"`
	Seq    int64  `json:"seq,omitempty"`
	// Body is the entry's JSON, kept and returned byte for byte.
	Body json.RawMessage `json:"body"`
}

// Journal keeps the records intents are realised from: committed
// attempts, recorded outcomes, processes' commands, parent-end plans. It
// is an append-only map from key to entry, with streams.
//
// Implementations must be safe for concurrent use (also across processes,
// for the durable ones) and must copy what they keep and return.
// MemoryJournal, store/sqlite.IntentJournal and store/postgres.IntentJournal
// implement it; intenttest.Run checks an implementation.
type Journal interface {
	// Append writes e unless an entry has its key: then nothing is written
	// and that entry is returned with existed set (the bodies are not
	// compared: the first write wins). Otherwise, if e's stream position is
	// taken, it fails with ErrConflict and writes nothing. A malformed
	// entry (see CheckEntry) is ErrInvalid.
	Append(ctx context.Context, e Entry) (stored Entry, existed bool, err error)
	// Get returns the entry whose key is key, or an error wrapping
	// ErrNotFound.
	Get(ctx context.Context, key string) (Entry, error)
	// Stream returns the entries of stream in Seq order (none for an
	// unknown stream).
	Stream(ctx context.Context, stream string) ([]Entry, error)
}

// CheckEntry reports (wrapping ErrInvalid) an entry without a key, with a
// NUL byte in its key or stream (which PostgreSQL text cannot hold), a
// negative Seq, a Seq outside a stream, or a body that is not JSON.
// Journal implementations call it before writing.
func CheckEntry(e Entry) error {
	switch {
	case e.Key == "":
		return fmt.Errorf("%w: a journal entry without a key", ErrInvalid)
	case strings.IndexByte(e.Key, 0) >= 0 || strings.IndexByte(e.Stream, 0) >= 0:
		return fmt.Errorf("%w: entry %q: a NUL byte in its key or stream", ErrInvalid, e.Key)
	case e.Seq < 0 || (e.Stream == "" && e.Seq != 0):
		return fmt.Errorf("%w: entry %q: seq %d in stream %q", ErrInvalid, e.Key, e.Seq, e.Stream)
	case !json.Valid(e.Body):
		return fmt.Errorf("%w: entry %q: the body is not JSON", ErrInvalid, e.Key)
	}
	return nil
}

// appendNext appends an entry with body under key at the end of stream,
// retrying when a concurrent writer took the position. It returns the
// stored entry (the earlier one if key existed).
func appendNext(ctx context.Context, j Journal, key, stream string, body []byte) (Entry, bool, error) {
	const maxRaces = 16
	for range maxRaces {
		if e, err := j.Get(ctx, key); err == nil {
			return e, true, nil
		} else if !isNotFound(err) {
			return Entry{}, false, err
		}
		es, err := j.Stream(ctx, stream)
		if err != nil {
			return Entry{}, false, err
		}
		e, existed, err := j.Append(ctx, Entry{Key: key, Stream: stream, Seq: int64(len(es)), Body: body})
		if isConflict(err) {
			continue
		}
		return e, existed, err
	}
	return Entry{}, false, fmt.Errorf("intent: append %q to %q: lost %d races in a row: %w", key, stream, maxRaces, ErrConflict)
}
