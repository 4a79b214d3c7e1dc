package intent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// MemoryJournal is a Journal in memory, for tests and for processes that
// need replay within their own lifetime only. The zero value is an empty
// journal ready to use; a MemoryJournal must not be copied after first
// use.
type MemoryJournal struct {
	mu      sync.Mutex
	byKey   map[string]Entry
	streams map[string]map[int64]string // stream → seq → key
}

// NewMemoryJournal returns an empty MemoryJournal.
func NewMemoryJournal() *MemoryJournal { return &MemoryJournal{} }

func clone(e Entry) Entry {
	e.Body = slices.Clone(e.Body)
	return e
}

// Append implements Journal.
func (m *MemoryJournal) Append(ctx context.Context, e Entry) (Entry, bool, error) {
	if err := CheckEntry(e); err != nil {
		return Entry{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.byKey[e.Key]; ok {
		return clone(cur), true, nil
	}
	if _, taken := m.streams[e.Stream][e.Seq]; taken && e.Stream != "" {
		return Entry{}, false, fmt.Errorf("intent: entry %q: %q position %d is taken: %w", e.Key, e.Stream, e.Seq, ErrConflict)
	}
	if m.byKey == nil {
		m.byKey = make(map[string]Entry)
		m.streams = make(map[string]map[int64]string)
	}
	m.byKey[e.Key] = clone(e)
	if e.Stream != "" {
		if m.streams[e.Stream] == nil {
			m.streams[e.Stream] = make(map[int64]string)
		}
		m.streams[e.Stream][e.Seq] = e.Key
	}
	return clone(e), false, nil
}

// Get implements Journal.
func (m *MemoryJournal) Get(ctx context.Context, key string) (Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byKey[key]
	if !ok {
		return Entry{}, fmt.Errorf("intent: entry %q: %w", key, ErrNotFound)
	}
	return clone(e), nil
}

// Stream implements Journal.
func (m *MemoryJournal) Stream(ctx context.Context, stream string) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seqs := slices.Sorted(maps.Keys(m.streams[stream]))
	out := make([]Entry, 0, len(seqs))
	for _, seq := range seqs {
		out = append(out, clone(m.byKey[m.streams[stream][seq]]))
	}
	return out, nil
}
