package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/effect/effecttest"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

func TestEffectStoreConformance(t *testing.T) {
	effecttest.Run(t, func(t *testing.T) effect.Store {
		return sqlite.NewEffectStore(openAt(t, filepath.Join(t.TempDir(), "sw.db")))
	})
}

func TestEffectStoreConformanceInMemory(t *testing.T) {
	effecttest.Run(t, func(t *testing.T) effect.Store { return sqlite.NewEffectStore(openAt(t, ":memory:")) })
}

// A completed effect outlives the process: a new handle on the file
// replays it.
func TestEffectReplayedAfterReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	req := effect.Request{Key: effect.Key("s", "r", 1, 0), Tool: "send", Class: effect.ClassNonIdempotentWrite, Input: json.RawMessage(`{"to":"ada"}`)}
	var calls atomic.Int32
	send := func(context.Context) (effect.Outcome, error) {
		calls.Add(1)
		return effect.Outcome{Output: json.RawMessage(`{"id": 7}`)}, nil
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&effect.Executor{Store: sqlite.NewEffectStore(db)}).Execute(ctx, req, send); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := (&effect.Executor{Store: sqlite.NewEffectStore(openAt(t, path))}).Execute(ctx, req, send)
	if err != nil || !res.Replayed || string(res.Output) != `{"id": 7}` || calls.Load() != 1 {
		t.Fatalf("after reopen: %+v, %v (%d calls)", res, err, calls.Load())
	}
}

// Two handles on one file stand for two worker processes: of concurrent
// attempts at one keyed effect, exactly one runs it.
func TestEffectTwoHandlesRunOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	workers := []*effect.Executor{
		{Store: sqlite.NewEffectStore(openAt(t, path))},
		{Store: sqlite.NewEffectStore(openAt(t, path))},
	}
	for round := range 20 {
		req := effect.Request{Key: effect.Key("s", "r", round, 0), Tool: "charge", Class: effect.ClassNonIdempotentWrite, Input: json.RawMessage(`{}`)}
		var calls atomic.Int32
		h := func(context.Context) (effect.Outcome, error) {
			calls.Add(1)
			return effect.Outcome{Output: json.RawMessage(`"charged"`)}, nil
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() { _, errs[i] = workers[i%2].Execute(ctx, req, h) })
		}
		wg.Wait()
		if calls.Load() != 1 {
			t.Fatalf("round %d: the handler ran %d times", round, calls.Load())
		}
		for i, err := range errs {
			if err != nil && !errors.Is(err, effect.ErrAmbiguous) && !errors.Is(err, effect.ErrConflict) {
				t.Fatalf("round %d, attempt %d: %v", round, i, err)
			}
		}
	}
}

// Concurrent journaled calls share transactions.
func TestEffectWritesAreGroupCommitted(t *testing.T) {
	ctx := context.Background()
	s := sqlite.NewEffectStore(openAt(t, filepath.Join(t.TempDir(), "sw.db")))
	ex := &effect.Executor{Store: s}
	const n = 500
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			req := effect.Request{Key: effect.Key("s", "r", 0, i), Tool: "t", Class: effect.ClassIdempotentWrite, Input: json.RawMessage(`{}`)}
			_, errs[i] = ex.Execute(ctx, req, func(context.Context) (effect.Outcome, error) {
				return effect.Outcome{Output: json.RawMessage(fmt.Sprint(i))}, nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		rec, err := s.FindByKey(ctx, effect.Key("s", "r", 0, i))
		if err != nil || rec.Status.State != effect.StateCompleted || string(rec.Status.Output) != fmt.Sprint(i) {
			t.Fatalf("call %d: record %+v, %v", i, rec, err)
		}
	}
	st := s.Stats()
	if st.Ops != 2*n {
		t.Fatalf("%d swaps for %d calls, want 2 each (started, completed)", st.Ops, n)
	}
	// Every call waits on the same single writer: if nothing were shared,
	// there would be one transaction per swap.
	if st.Batches >= st.Ops/2 {
		t.Fatalf("%d transactions for %d swaps: writes are not batched", st.Batches, st.Ops)
	}
	t.Logf("%d swaps in %d transactions (%.3f per call)", st.Ops, st.Batches, float64(st.Batches)/n)
}

// A journaled call whose record would be committed to a WAL removed under
// the store fails with ErrFilesReplaced instead of recording nothing.
func TestEffectRecordToARemovedWALFails(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	ex := &effect.Executor{Store: sqlite.NewEffectStore(openAt(t, path))}
	input := json.RawMessage(`{"to":"all"}`)
	req := func(i int) effect.Request {
		return effect.Request{Key: effect.Key("s", "run", 0, i), Tool: "send", Class: effect.ClassNonIdempotentWrite, Input: input}
	}
	ok := func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{Output: json.RawMessage(`{"ok":true}`)}, nil
	}
	if _, err := ex.Execute(ctx, req(0), ok); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + "-wal"); err != nil {
		t.Fatal(err)
	}
	ran := false
	_, err := ex.Execute(ctx, req(1), func(ctx context.Context) (effect.Outcome, error) { ran = true; return ok(ctx) })
	if !errors.Is(err, sqlite.ErrFilesReplaced) {
		t.Fatalf("a call journaled after the WAL was removed: err = %v, want ErrFilesReplaced", err)
	}
	if ran {
		t.Fatal("the call ran although its start could not be recorded")
	}
}
