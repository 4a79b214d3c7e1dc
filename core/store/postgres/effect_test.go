package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/effect/effecttest"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
)

func TestEffectStoreConformance(t *testing.T) {
	effecttest.Run(t, func(t *testing.T) effect.Store {
		return postgres.NewEffectStore(openDB(t, pgtest.DSN(t)))
	})
}

// Two pools on one database stand for two worker processes. Many rounds
// of concurrent attempts at one keyed, non-idempotent effect, from both
// workers: the handler runs exactly once per round; every other attempt
// replays it or is refused as ambiguous (or loses a race), never runs it
// a second time.
func TestEffectTwoWorkersRunOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	workers := []*effect.Executor{
		{Store: postgres.NewEffectStore(openDB(t, dsn))},
		{Store: postgres.NewEffectStore(openDB(t, dsn))},
	}
	const rounds, attempts = 25, 6
	for round := range rounds {
		req := effect.Request{Key: effect.Key("s", "r", round, 0), Tool: "charge", Class: effect.ClassNonIdempotentWrite, Input: json.RawMessage(`{"cents":500}`)}
		var runs atomic.Int32
		charge := func(context.Context) (effect.Outcome, error) {
			runs.Add(1)
			return effect.Outcome{Output: json.RawMessage(`{"charge":"ch_1"}`)}, nil
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		results := make([]effect.Result, attempts)
		errs := make([]error, attempts)
		for i := range attempts {
			wg.Go(func() {
				<-start
				results[i], errs[i] = workers[i%2].Execute(ctx, req, charge)
			})
		}
		close(start)
		wg.Wait()
		if n := runs.Load(); n != 1 {
			t.Fatalf("round %d: the handler ran %d times", round, n)
		}
		fresh := 0
		for i, err := range errs {
			switch {
			case err == nil && !results[i].Replayed:
				fresh++
			case err == nil, errors.Is(err, effect.ErrAmbiguous), errors.Is(err, effect.ErrConflict):
			default:
				t.Fatalf("round %d, attempt %d: %v", round, i, err)
			}
			if err == nil && string(results[i].Output) != `{"charge":"ch_1"}` {
				t.Fatalf("round %d, attempt %d: output %s", round, i, results[i].Output)
			}
		}
		if fresh != 1 {
			t.Fatalf("round %d: %d fresh runs reported", round, fresh)
		}
		// Afterwards both workers replay it.
		for w, ex := range workers {
			res, err := ex.Execute(ctx, req, charge)
			if err != nil || !res.Replayed {
				t.Fatalf("round %d, worker %d afterwards: %+v, %v", round, w, res, err)
			}
		}
	}
}

// Concurrent journaled calls share round trips and transactions, and
// each swap still gets its own result.
func TestEffectWritesAreGroupCommitted(t *testing.T) {
	ctx := context.Background()
	s := postgres.NewEffectStore(openDB(t, pgtest.DSN(t)))
	ex := &effect.Executor{Store: s}
	const n = 300
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// Pairs of calls share a key but not an input: one of each
			// pair runs, the other is an idempotency conflict.
			req := effect.Request{Key: effect.Key("s", "r", 0, i/2), Tool: "t", Class: effect.ClassIdempotentWrite, Input: json.RawMessage(fmt.Sprint(i))}
			_, errs[i] = ex.Execute(ctx, req, func(context.Context) (effect.Outcome, error) {
				return effect.Outcome{Output: json.RawMessage(fmt.Sprint(i))}, nil
			})
		})
	}
	wg.Wait()
	for k := 0; k < n; k += 2 {
		a, b := errs[k], errs[k+1]
		if (a == nil) == (b == nil) {
			t.Fatalf("pair %d: %v, %v; want exactly one success", k/2, a, b)
		}
		lost := a
		if lost == nil {
			lost = b
		}
		if !errors.Is(lost, effect.ErrIdempotencyConflict) {
			t.Fatalf("pair %d: %v", k/2, lost)
		}
		rec, err := s.FindByKey(ctx, effect.Key("s", "r", 0, k/2))
		if err != nil || rec.Status.State != effect.StateCompleted || string(rec.Status.Output) != string(rec.Request.Input) {
			t.Fatalf("pair %d: record %+v, %v", k/2, rec, err)
		}
	}
	st := s.Stats()
	if st.Batches >= st.Ops {
		t.Fatalf("%d transactions for %d swaps: writes are not batched", st.Batches, st.Ops)
	}
	t.Logf("%d swaps in %d transactions", st.Ops, st.Batches)
}

// BenchmarkJournalPostgres journals one trivial call end to end.
func BenchmarkJournalPostgres(b *testing.B) {
	ctx := context.Background()
	ex := &effect.Executor{Store: postgres.NewEffectStore(openDB(b, pgtest.DSN(b)))}
	input := json.RawMessage(`{"path":"a.txt"}`)
	out := func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{Output: json.RawMessage(`{"ok":true}`)}, nil
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req := effect.Request{Key: effect.Key("bench", "run", 0, i), Tool: "write_file", Class: effect.ClassIdempotentWrite, Input: input}
		if _, err := ex.Execute(ctx, req, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJournalPostgresParallel1000 journals rounds of 1000 concurrent
// trivial calls and reports the cost per call and the transactions each
// call took (2 without group commit).
func BenchmarkJournalPostgresParallel1000(b *testing.B) {
	ctx := context.Background()
	s := postgres.NewEffectStore(openDB(b, pgtest.DSN(b)))
	ex := &effect.Executor{Store: s}
	input := json.RawMessage(`{"path":"a.txt"}`)
	out := func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{Output: json.RawMessage(`{"ok":true}`)}, nil
	}
	const width = 1000
	b.ReportAllocs()
	calls := 0
	for round := 0; b.Loop(); round++ {
		var wg sync.WaitGroup
		for i := range width {
			wg.Go(func() {
				req := effect.Request{Key: effect.Key("bench", fmt.Sprint(round), 0, i), Tool: "write_file", Class: effect.ClassIdempotentWrite, Input: input}
				if _, err := ex.Execute(ctx, req, out); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		calls += width
	}
	st := s.Stats()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
	b.ReportMetric(float64(st.Batches)/float64(calls), "tx/call")
	b.ReportMetric(float64(st.Ops)/float64(st.Batches), "swaps/tx")
}
