package effect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

// gatedStore counts transactions; while gate is set, the first batch
// waits for it to close, so the test can queue operations behind it.
type gatedStore struct {
	*effect.MemoryStore
	batches atomic.Int32
	sizes   []int // guarded by mu
	mu      sync.Mutex
	entered chan struct{} // closed when the first batch starts
	gate    chan struct{}
	once    sync.Once
	fail    error // fails every batch but the first
	panics  bool
}

func newGated(gated bool) *gatedStore {
	s := &gatedStore{MemoryStore: effect.NewMemoryStore(), entered: make(chan struct{})}
	if gated {
		s.gate = make(chan struct{})
	}
	return s
}

func (s *gatedStore) CompareAndSwapBatch(ctx context.Context, ops []effect.Op) ([]error, error) {
	s.batches.Add(1)
	s.mu.Lock()
	s.sizes = append(s.sizes, len(ops))
	s.mu.Unlock()
	first := false
	s.once.Do(func() { first = true; close(s.entered) })
	if first && s.gate != nil {
		<-s.gate
	}
	if s.panics {
		panic("store exploded")
	}
	if s.fail != nil && !first { // the gated batch commits; the ones behind it fail
		return nil, s.fail
	}
	return s.MemoryStore.CompareAndSwapBatch(ctx, ops)
}

func prepared(id, key string) effect.Record {
	return effect.Record{
		Request: effect.Request{ID: id, Key: key, Tool: "t", Class: effect.ClassIdempotentWrite, Input: json.RawMessage(`{}`)},
		Status:  effect.Status{State: effect.StatePrepared},
	}
}

// queueBehindGate starts one operation that holds the first batch open,
// then runs ops concurrently and waits until all of them are queued. It
// returns a function that opens the gate and waits for every result.
func queueBehindGate(t *testing.T, b *effect.Batcher, s *gatedStore, ops []func() error) (finish func() []error) {
	t.Helper()
	var queued sync.WaitGroup
	queued.Add(1 + len(ops))
	effect.OnEnqueue(b, queued.Done)
	firstErr := make(chan error, 1)
	go func() { firstErr <- b.CompareAndSwap(context.Background(), prepared("first", ""), effect.CreateOnly) }()
	<-s.entered
	errs := make([]error, len(ops))
	var done sync.WaitGroup
	for i, op := range ops {
		done.Go(func() { errs[i] = op() })
	}
	queued.Wait()
	return func() []error {
		close(s.gate)
		done.Wait()
		if err := <-firstErr; err != nil {
			t.Fatalf("the first operation: %v", err)
		}
		return errs
	}
}

// A thousand concurrent swaps that queue behind one transaction commit
// together, in as few transactions as the batch limit allows, and each
// gets its own result: half of them lose a race for a key, and that
// fails nobody else.
func TestBatcherGroupCommitsConcurrentSwaps(t *testing.T) {
	const n = 1000
	s := newGated(true)
	b := effect.NewBatcher(s, 300)
	ops := make([]func() error, n)
	for i := range ops {
		// Pairs (2k, 2k+1) create different effects with the same key:
		// exactly one of each pair may win.
		rec := prepared(fmt.Sprintf("e%d", i), fmt.Sprintf("k%d", i/2))
		ops[i] = func() error { return b.CompareAndSwap(context.Background(), rec, effect.CreateOnly) }
	}
	errs := queueBehindGate(t, b, s, ops)()

	for k := 0; k < n; k += 2 {
		a, c := errs[k], errs[k+1]
		won := 0
		for _, err := range []error{a, c} {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, effect.ErrConflict):
				t.Fatalf("pair %d: unexpected error %v", k/2, err)
			}
		}
		if won != 1 {
			t.Fatalf("pair %d: %d winners (%v, %v), want 1", k/2, won, a, c)
		}
		rec, err := s.FindByKey(context.Background(), fmt.Sprintf("k%d", k/2))
		winner := fmt.Sprintf("e%d", k)
		if a != nil {
			winner = fmt.Sprintf("e%d", k+1)
		}
		if err != nil || rec.Request.ID != winner {
			t.Fatalf("pair %d: key owned by %q (%v), want %q", k/2, rec.Request.ID, err, winner)
		}
	}
	// One transaction for the first operation, then ceil(1000/300) = 4.
	if got := s.batches.Load(); got != 5 {
		t.Fatalf("%d transactions for %d operations (sizes %v), want 5", got, n+1, s.sizes)
	}
	if st := b.Stats(); st.Ops != n+1 || st.Batches != 5 {
		t.Fatalf("stats = %+v", st)
	}
}

// Without any gate, under the race detector: every operation is applied
// exactly once and results match what was applied.
func TestBatcherConcurrentUpdates(t *testing.T) {
	s := newGated(false)
	b := effect.NewBatcher(s, 0)
	ctx := context.Background()
	const effects, writers = 50, 20
	for i := range effects {
		if err := b.CompareAndSwap(ctx, prepared(fmt.Sprintf("e%d", i), ""), effect.CreateOnly); err != nil {
			t.Fatal(err)
		}
	}
	// Writers race to move each effect from revision 0 to 1: one wins per
	// effect.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range effects {
				rec := prepared(fmt.Sprintf("e%d", i), "")
				rec.Revision = 1
				rec.Status = effect.Status{State: effect.StateStarted}
				switch err := b.CompareAndSwap(ctx, rec, 0); {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, effect.ErrConflict):
					t.Errorf("writer %d, effect %d: %v", w, i, err)
				}
			}
		})
	}
	wg.Wait()
	if wins.Load() != effects {
		t.Fatalf("%d swaps won, want %d", wins.Load(), effects)
	}
	st := b.Stats()
	if st.Ops != effects*(writers+1) || st.Batches > st.Ops {
		t.Fatalf("stats = %+v", st)
	}
	t.Logf("%d operations in %d transactions", st.Ops, st.Batches)
}

func TestBatcherDropsOperationsWhoseContextEnded(t *testing.T) {
	s := newGated(true)
	b := effect.NewBatcher(s, 0)
	ctx, cancel := context.WithCancel(context.Background())
	op := func() error { return b.CompareAndSwap(ctx, prepared("late", ""), effect.CreateOnly) }
	finish := queueBehindGate(t, b, s, []func() error{op})
	cancel() // while queued, before its batch forms
	if errs := finish(); !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", errs[0])
	}
	if _, err := s.Load(context.Background(), "late"); !errors.Is(err, effect.ErrNotFound) {
		t.Fatalf("a dropped operation was applied: %v", err)
	}
}

func TestBatcherReportsTransactionFailureToEveryOperation(t *testing.T) {
	s := newGated(true)
	b := effect.NewBatcher(s, 0)
	ops := make([]func() error, 3)
	for i := range ops {
		ops[i] = func() error {
			return b.CompareAndSwap(context.Background(), prepared(fmt.Sprintf("e%d", i), ""), effect.CreateOnly)
		}
	}
	broken := errors.New("disk full")
	finish := queueBehindGate(t, b, s, ops)
	s.fail = broken // read by the next batch only, which forms after the gate opens
	for i, err := range finish() {
		if !errors.Is(err, broken) {
			t.Fatalf("op %d: error = %v, want the transaction's", i, err)
		}
	}
}

// A commit that panics must not strand the callers waiting on it, nor
// stop later batches.
func TestBatcherSurvivesAPanickingCommit(t *testing.T) {
	s := newGated(false)
	s.panics = true
	b := effect.NewBatcher(s, 0)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the commit's panic was swallowed")
			}
		}()
		_ = b.CompareAndSwap(context.Background(), prepared("e1", ""), effect.CreateOnly)
	}()
	s.panics = false
	if err := b.CompareAndSwap(context.Background(), prepared("e2", ""), effect.CreateOnly); err != nil {
		t.Fatalf("after a panic: %v", err)
	}
}

func TestBatcherRefusesInvalidSwapsWithoutQueueing(t *testing.T) {
	s := newGated(false)
	b := effect.NewBatcher(s, 0)
	rec := prepared("e", "")
	rec.Revision = 3
	if err := b.CompareAndSwap(context.Background(), rec, effect.CreateOnly); !errors.Is(err, effect.ErrInvalid) {
		t.Fatalf("error = %v", err)
	}
	if s.batches.Load() != 0 {
		t.Fatal("an invalid swap reached the store")
	}
}
