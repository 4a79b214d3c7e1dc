package effect

import (
	"context"
	"fmt"
	"sync"
)

// MemoryStore is a Store in memory, for tests and for processes that need
// replay within their own lifetime only. The zero value is an empty store
// ready to use; a MemoryStore must not be copied after first use.
//
// It also implements BatchStore, applying a batch under one lock.
type MemoryStore struct {
	mu    sync.Mutex
	byID  map[string]Record
	byKey map[string]string // key → effect id
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Load implements Store.
func (m *MemoryStore) Load(ctx context.Context, id string) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.byID[id]
	if !ok {
		return Record{}, fmt.Errorf("effect %q: %w", id, ErrNotFound)
	}
	return rec.Clone(), nil
}

// FindByKey implements Store.
func (m *MemoryStore) FindByKey(ctx context.Context, key string) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.byKey[key]
	if !ok || key == "" {
		return Record{}, fmt.Errorf("effect key %q: %w", key, ErrNotFound)
	}
	return m.byID[id].Clone(), nil
}

// CompareAndSwap implements Store.
func (m *MemoryStore) CompareAndSwap(ctx context.Context, rec Record, expected uint64) error {
	if err := CheckSwap(rec, expected); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.swap(rec, expected)
}

// CompareAndSwapBatch implements BatchStore: the batch is applied under
// one lock, each operation seeing the ones before it.
func (m *MemoryStore) CompareAndSwapBatch(ctx context.Context, ops []Op) ([]error, error) {
	errs := make([]error, len(ops))
	for i, op := range ops {
		errs[i] = CheckSwap(op.Record, op.Expected)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, op := range ops {
		if errs[i] == nil {
			errs[i] = m.swap(op.Record, op.Expected)
		}
	}
	return errs, nil
}

// swap applies one checked compare-and-swap; m.mu is held.
func (m *MemoryStore) swap(rec Record, expected uint64) error {
	id, key := rec.Request.ID, rec.Request.Key
	cur, exists := m.byID[id]
	if expected == CreateOnly {
		if exists {
			return fmt.Errorf("effect %q already exists: %w", id, ErrConflict)
		}
		if _, taken := m.byKey[key]; taken && key != "" {
			return fmt.Errorf("effect %q: key %q belongs to another effect: %w", id, key, ErrConflict)
		}
	} else {
		if !exists {
			return fmt.Errorf("effect %q: %w", id, ErrNotFound)
		}
		if cur.Revision != expected {
			return fmt.Errorf("effect %q is at revision %d, not %d: %w", id, cur.Revision, expected, ErrConflict)
		}
		if cur.Request.Key != key {
			return fmt.Errorf("effect %q: an update cannot change the key: %w", id, ErrConflict)
		}
	}
	if m.byID == nil {
		m.byID = make(map[string]Record)
		m.byKey = make(map[string]string)
	}
	m.byID[id] = rec.Clone()
	if key != "" {
		m.byKey[key] = id
	}
	return nil
}
