package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
	"github.com/starweaver-go/starweaver/core/tool"
)

// trivialWrite is a non-idempotent tool that does nothing.
func trivialWrite(name string) *tool.Function {
	return tool.New(name, "", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("ok"), nil
		}).WithEffect(effect.ClassNonIdempotentWrite)
}

// BenchmarkJournaledCallSQLite measures what journaling adds to a trivial
// tool call end to end: a run that makes one call of a non-idempotent
// tool, then answers, with and without an effect journal in an SQLite
// file (WAL). The two runs alternate within each iteration, so that both
// see the same machine; the metrics are the mean run of each and their
// difference, the cost of journaling one call (recording it started, then
// completed).
func BenchmarkJournaledCallSQLite(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "sw.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	script := []model.Message{model.CallsResponse(model.Call("c1", "send", map[string]int{"x": 1})), model.Response(model.TextPart("done"))}
	plainModel, journaledModel := newScripted(script), newScripted(script)
	plain := agent.NewBuilder(plainModel).Tool(trivialWrite("send")).MustBuild()
	journaled := agent.NewBuilder(journaledModel).Tool(trivialWrite("send")).EffectJournal(sqlite.NewEffectStore(db)).MustBuild()
	var plainTime, journaledTime time.Duration
	b.ReportAllocs()
	for b.Loop() {
		plainModel.reset()
		start := time.Now()
		if _, err := plain.Run(ctx, "go"); err != nil {
			b.Fatal(err)
		}
		plainTime += time.Since(start)
		journaledModel.reset()
		start = time.Now()
		if _, err := journaled.Run(ctx, "go"); err != nil {
			b.Fatal(err)
		}
		journaledTime += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(plainTime.Microseconds())/n, "µs/plain-run")
	b.ReportMetric(float64(journaledTime.Microseconds())/n, "µs/journaled-run")
	b.ReportMetric(float64((journaledTime-plainTime).Microseconds())/n, "µs-added/call")
}

// A thousand parallel journaled calls (one response calling a thousand
// distinct non-idempotent tools) group-commit their journal writes: far
// fewer transactions than the two writes per call of calls run one by
// one.
func TestThousandParallelJournaledCallsBatch(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 1000
	tools := make([]tool.Tool, n)
	cs := make([]model.ToolCall, n)
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		tools[i] = trivialWrite(name)
		cs[i] = model.Call(fmt.Sprintf("c%d", i), name, map[string]int{"x": i})
	}
	journal := sqlite.NewEffectStore(db)
	a := agent.NewBuilder(model.NewTestModel(model.CallsResponse(cs...), text("done"))).Tool(tools...).
		UsageLimits(agent.UsageLimits{ToolCallsLimit: n}).EffectJournal(journal).MustBuild()
	s := a.NewSession()
	res, err := s.Run(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ret := lastReturn(t, res.Messages, fmt.Sprintf("c%d", i))
		if ret.IsError {
			t.Fatalf("call %d: %+v", i, ret)
		}
		rec, err := journal.FindByKey(ctx, effect.Key(s.ID(), res.RunID, 0, i))
		if err != nil || rec.Status.State != effect.StateCompleted {
			t.Fatalf("call %d: record %+v, %v", i, rec, err)
		}
	}
	st := journal.Stats()
	t.Logf("%d journal writes in %d transactions", st.Ops, st.Batches)
	if st.Ops != 2*n || st.Batches > st.Ops/4 {
		t.Fatalf("%d writes in %d transactions: not group-committed", st.Ops, st.Batches)
	}
}

// durableStores opens a session store and an effect journal in one
// database of each backend (PostgreSQL when a server is given: see
// pgtest).
func durableStores(t *testing.T, backend string) (session.Store, effect.Store, func() effect.BatchStats) {
	t.Helper()
	ctx := context.Background()
	switch backend {
	case "sqlite":
		db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sw.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		j := sqlite.NewEffectStore(db)
		return sqlite.NewSessionStore(db), j, j.Stats
	default:
		db, err := postgres.Open(ctx, pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		j := postgres.NewEffectStore(db)
		return postgres.NewSessionStore(db), j, j.Stats
	}
}

// The recovery of a stopped worker's run, and the group commit of parallel
// calls, over each durable backend.
func TestJournalOverDurableStores(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			sessions, journal, stats := durableStores(t, backend)
			st := newTape(sessions)
			var sent atomic.Int32
			first := journaledAgent(st, journal, model.NewTestModel(calls(model.Call("c1", "send", map[string]string{"to": "ada"})), text("done")),
				[]tool.Tool{sendTool(&sent)})
			s := first.NewSession()
			if _, err := s.Run(ctx, "greet ada"); err != nil {
				t.Fatal(err)
			}
			st.rewind(t, s.ID(), "in_flight")
			r, err := journaledAgent(sessions, journal, model.TextModel("recovered"), []tool.Tool{sendTool(&sent)}).OpenSession(ctx, s.ID())
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Recover(ctx)
			if err != nil || res.Output != "recovered" || sent.Load() != 1 {
				t.Fatalf("Recover: %+v %v (sent %d times)", res, err, sent.Load())
			}
			if ret := lastReturn(t, res.Messages, "c1"); ret.Metadata[tool.MetaReplayed] != true {
				t.Fatalf("return %+v", ret)
			}

			// A hundred parallel calls share transactions.
			const n = 100
			tools := make([]tool.Tool, n)
			cs := make([]model.ToolCall, n)
			for i := range n {
				tools[i] = trivialWrite(fmt.Sprintf("w%d", i))
				cs[i] = model.Call(fmt.Sprintf("c%d", i), fmt.Sprintf("w%d", i), map[string]int{"x": i})
			}
			before := stats()
			a := agent.NewBuilder(model.NewTestModel(model.CallsResponse(cs...), text("done"))).Tool(tools...).EffectJournal(journal).MustBuild()
			if _, err := a.Run(ctx, "go"); err != nil {
				t.Fatal(err)
			}
			after := stats()
			ops, batches := after.Ops-before.Ops, after.Batches-before.Batches
			t.Logf("%d writes in %d transactions", ops, batches)
			if ops != 2*n || batches >= ops {
				t.Fatalf("%d writes in %d transactions", ops, batches)
			}
		})
	}
}
