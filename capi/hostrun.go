package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
)

// hostRun is one run driven by the host. Work for the host (tool calls,
// model requests, cancellations, events, the final result) is queued here;
// the queue going from empty to non-empty writes one byte to a pipe the
// host watches, and the host takes the whole queue with sw_run_drain. The
// host never gets a callback from a Go thread.
type hostRun struct {
	cancel context.CancelFunc
	rfd    int
	wfd    int

	mu       sync.Mutex
	items    [][]byte
	signaled bool
	closed   bool
	next     int64
	waiters  map[int64]chan []byte
}

func newHostRun() (*hostRun, error) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		return nil, fmt.Errorf("creating the wake-up pipe: %w", err)
	}
	for _, fd := range fds {
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
			return nil, fmt.Errorf("configuring the wake-up pipe: %w", err)
		}
	}
	return &hostRun{rfd: fds[0], wfd: fds[1], waiters: map[int64]chan []byte{}}, nil
}

// post queues one JSON item and wakes the host if the queue was empty.
func (r *hostRun) post(item []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.items = append(r.items, item)
	if !r.signaled {
		r.signaled = true
		// EAGAIN means the pipe already holds a wake-up byte.
		_, _ = syscall.Write(r.wfd, []byte{1})
	}
}

// drain returns the queued items as one JSON array.
func (r *hostRun) drain() []byte {
	r.mu.Lock()
	items := r.items
	r.items = nil
	r.signaled = false
	r.mu.Unlock()
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// await posts the item built for a fresh token and waits for the host's
// completion or for ctx to end. When ctx ends first, the host is told to
// cancel the token and a later completion is dropped.
func (r *hostRun) await(ctx context.Context, build func(token int64) ([]byte, error)) ([]byte, error) {
	ch := make(chan []byte, 1)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("run is closed")
	}
	r.next++
	token := r.next
	r.waiters[token] = ch
	r.mu.Unlock()
	item, err := build(token)
	if err != nil {
		r.forget(token)
		return nil, err
	}
	r.post(item)
	select {
	case out := <-ch:
		return out, nil
	case <-ctx.Done():
		r.forget(token)
		r.post([]byte(fmt.Sprintf(`{"kind":"cancel","token":%d}`, token)))
		return nil, ctx.Err()
	}
}

func (r *hostRun) forget(token int64) {
	r.mu.Lock()
	delete(r.waiters, token)
	r.mu.Unlock()
}

// complete delivers a completion; it reports false for tokens no longer
// awaited.
func (r *hostRun) complete(token int64, data []byte) bool {
	r.mu.Lock()
	ch, ok := r.waiters[token]
	delete(r.waiters, token)
	r.mu.Unlock()
	if !ok {
		return false
	}
	ch <- data
	return true
}

// close cancels the run and releases the pipe. Queued items are dropped.
func (r *hostRun) close() {
	r.cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	r.items = nil
	syscall.Close(r.rfd)
	syscall.Close(r.wfd)
}

type runKey struct{}

func withRun(ctx context.Context, r *hostRun) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

func runFrom(ctx context.Context) *hostRun {
	r, _ := ctx.Value(runKey{}).(*hostRun)
	return r
}

func mustJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding host item: %w", err)
	}
	return b, nil
}

// completion is one [token, outcome] pair of a completion batch.
type completion struct {
	Token   int64
	Outcome json.RawMessage
}

// decodeCompletions reads a completion batch: a JSON array of pairs.
func decodeCompletions(data []byte) ([]completion, error) {
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, specError("completion batch: %v", err)
	}
	out := make([]completion, len(raw))
	for i, pair := range raw {
		if err := json.Unmarshal(pair[0], &out[i].Token); err != nil {
			return nil, specError("completion batch item %d: token: %v", i, err)
		}
		if len(pair[1]) == 0 {
			return nil, specError("completion batch item %d: missing outcome", i)
		}
		out[i].Outcome = pair[1]
	}
	return out, nil
}
