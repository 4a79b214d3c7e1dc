package bridge

import (
	"fmt"
	"sync"
)

// handles maps the integer handles given to the host to Go objects. A
// c-shared library has exactly one instance per process, so this table is
// the library's only process-wide state (with the shutdown flag in
// lifecycle.go).
var handles = handleTable{m: map[int64]any{}}

type handleTable struct {
	mu   sync.Mutex
	next int64
	m    map[int64]any
}

func (t *handleTable) add(v any) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.m[t.next] = v
	return t.next
}

func (t *handleTable) get(h int64) (any, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[h]
	return v, ok
}

func (t *handleTable) remove(h int64) (any, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[h]
	delete(t.m, h)
	return v, ok
}

func (t *handleTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// lookup returns the object of handle h when it has type T.
func lookup[T any](h int64) (T, error) {
	var zero T
	v, ok := handles.get(h)
	if !ok {
		return zero, &abiError{Type: "bad_handle", Message: fmt.Sprintf("unknown handle %d", h)}
	}
	t, ok := v.(T)
	if !ok {
		return zero, &abiError{Type: "bad_handle", Message: fmt.Sprintf("handle %d is a %T, not a %T", h, v, zero)}
	}
	return t, nil
}
