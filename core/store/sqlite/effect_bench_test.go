package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

var trivialOutput = json.RawMessage(`{"ok":true}`)

func trivial(context.Context) (effect.Outcome, error) {
	return effect.Outcome{Output: trivialOutput}, nil
}

// BenchmarkJournalSQLite journals one trivial tool call end to end on a
// WAL database file: record it started, run the handler, record it
// completed (two write transactions, no read). Calls run one after
// another, so nothing is batched.
func BenchmarkJournalSQLite(b *testing.B) {
	ctx := context.Background()
	ex := &effect.Executor{Store: sqlite.NewEffectStore(openAt(b, filepath.Join(b.TempDir(), "sw.db")))}
	input := json.RawMessage(`{"path":"a.txt"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req := effect.Request{Key: effect.Key("bench", "run", 0, i), Tool: "write_file", Class: effect.ClassIdempotentWrite, Input: input}
		if _, err := ex.Execute(ctx, req, trivial); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJournalSQLiteParallel1000 journals rounds of 1000 concurrent
// trivial calls and reports the cost per call and how many write
// transactions each call took: without group commit it would be 2.
func BenchmarkJournalSQLiteParallel1000(b *testing.B) {
	ctx := context.Background()
	s := sqlite.NewEffectStore(openAt(b, filepath.Join(b.TempDir(), "sw.db")))
	ex := &effect.Executor{Store: s}
	input := json.RawMessage(`{"path":"a.txt"}`)
	const width = 1000
	b.ReportAllocs()
	b.ResetTimer()
	calls := 0
	for round := 0; b.Loop(); round++ {
		var wg sync.WaitGroup
		for i := range width {
			wg.Go(func() {
				req := effect.Request{Key: effect.Key("bench", strconv.Itoa(round), 0, i), Tool: "write_file", Class: effect.ClassIdempotentWrite, Input: input}
				if _, err := ex.Execute(ctx, req, trivial); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		calls += width
	}
	b.StopTimer()
	st := s.Stats()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
	b.ReportMetric(float64(st.Batches)/float64(calls), "tx/call")
	b.ReportMetric(float64(st.Ops)/float64(st.Batches), "swaps/tx")
}
