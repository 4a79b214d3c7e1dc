package artifact

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/starweaver-go/starweaver/core/internal/artifactref"
)

// MemoryStore is a [Store] in process memory, for tests and for runs that
// need no durability. One mutex guards it: every method holds it for the
// whole operation, so racing puts settle exactly as in a transaction. It
// never blocks on anything but that mutex and ignores ctx.
//
// Bytes are copied in and out: a caller modifying what it passed to Put or
// got from Get never changes the stored artifact.
type MemoryStore struct {
	cfg    Config
	mu     sync.Mutex
	scopes map[Scope]*memoryScope
}

type memoryScope struct {
	artifacts map[string]memoryArtifact // by id
	keys      map[string]string         // idempotency key → id
}

type memoryArtifact struct {
	ref  Ref
	data []byte
}

// NewMemoryStore returns an empty store configured by cfg (the zero
// Config for the defaults). It panics if cfg.MaxBytes is negative.
func NewMemoryStore(cfg Config) *MemoryStore {
	return &MemoryStore{cfg: cfg.Normalised(), scopes: map[Scope]*memoryScope{}}
}

// Put implements [Writer].
func (s *MemoryStore) Put(_ context.Context, w Write) (Ref, error) {
	if err := w.Validate(s.cfg.MaxBytes); err != nil {
		return Ref{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scopes[w.Scope()]
	if sc == nil {
		sc = &memoryScope{artifacts: map[string]memoryArtifact{}, keys: map[string]string{}}
		s.scopes[w.Scope()] = sc
	}
	if id, ok := sc.keys[w.IdempotencyKey()]; ok {
		return w.Replay(sc.artifacts[id].ref)
	}
	if a, ok := sc.artifacts[w.ID()]; ok {
		ref, err := w.Alias(a.ref)
		if err == nil {
			sc.keys[w.IdempotencyKey()] = w.ID()
		}
		return ref, err
	}
	ref := w.Ref(s.cfg.NowUnixMS())
	// w.Bytes() is the Write's own copy, never modified: no need to copy again.
	sc.artifacts[w.ID()] = memoryArtifact{ref: ref, data: w.Bytes()}
	sc.keys[w.IdempotencyKey()] = w.ID()
	return ref, nil
}

// Get implements [Reader].
func (s *MemoryStore) Get(_ context.Context, ref Ref) (Artifact, error) {
	if err := ref.Validate(); err != nil {
		return Artifact{}, err
	}
	s.mu.Lock()
	a, ok := s.lookup(ref.Scope, ref.ID)
	s.mu.Unlock()
	if !ok {
		return Artifact{}, fmt.Errorf("%w: %s", ErrNotFound, ref.ID)
	}
	if err := Verify(ref, a.ref, a.data, s.cfg.NowUnixMS()); err != nil {
		return Artifact{}, err
	}
	return Artifact{Ref: a.ref, Bytes: append([]byte(nil), a.data...)}, nil
}

func (s *MemoryStore) lookup(scope Scope, id string) (memoryArtifact, bool) {
	sc := s.scopes[scope]
	if sc == nil {
		return memoryArtifact{}, false
	}
	a, ok := sc.artifacts[id]
	return a, ok
}

// List implements [Store]. It sorts the scope's ids on every call: fine
// for the sizes a memory store holds.
func (s *MemoryStore) List(_ context.Context, scope Scope, after string, limit int) (Page, error) {
	if err := CheckList(scope, after, limit); err != nil {
		return Page{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []Ref
	if sc := s.scopes[scope]; sc != nil {
		for id, a := range sc.artifacts {
			if id > after {
				rows = append(rows, a.ref)
			}
		}
	}
	slices.SortFunc(rows, func(a, b Ref) int { return strings.Compare(a.ID, b.ID) })
	return NewPage(rows[:min(len(rows), limit+1)], limit), nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(_ context.Context, scope Scope, id string) (bool, error) {
	if err := CheckDelete(scope, id); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scopes[scope]
	if sc == nil {
		return false, nil
	}
	if _, ok := sc.artifacts[id]; !ok {
		return false, nil
	}
	sc.remove(map[string]bool{id: true})
	return true, nil
}

// remove deletes the artifacts ids and the keys naming them, like the
// SQL stores' ON DELETE CASCADE; the store's mutex is held.
func (sc *memoryScope) remove(ids map[string]bool) {
	for id := range ids {
		delete(sc.artifacts, id)
	}
	for k, id := range sc.keys {
		if ids[id] {
			delete(sc.keys, k)
		}
	}
}

// PurgeExpired implements [Store].
func (s *MemoryStore) PurgeExpired(_ context.Context, scope Scope, nowUnixMS int64, limit int) (int, error) {
	if err := CheckPurge(scope, nowUnixMS, limit); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scopes[scope]
	if sc == nil {
		return 0, nil
	}
	var due []Ref
	for _, a := range sc.artifacts {
		if artifactref.Expired(a.ref, nowUnixMS) {
			due = append(due, a.ref)
		}
	}
	slices.SortFunc(due, func(a, b Ref) int {
		return cmp.Or(cmp.Compare(*a.ExpiresAtUnixMS, *b.ExpiresAtUnixMS), strings.Compare(a.ID, b.ID))
	})
	due = due[:min(len(due), limit)]
	ids := make(map[string]bool, len(due))
	for _, r := range due {
		ids[r.ID] = true
	}
	sc.remove(ids)
	return len(due), nil
}
