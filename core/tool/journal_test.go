package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

// journalBase is the context of step 2 of run r1 in session s1.
func journalBase() *tool.Context {
	return &tool.Context{RunID: "r1", ConversationID: "s1", RunStep: 2}
}

// counted is a tool of class cls that counts its runs and answers with
// answer.
func counted(name string, cls effect.Class, n *atomic.Int32, answer func(tc *tool.Context) (tool.Result, error)) *tool.Function {
	f := tool.New(name, "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		n.Add(1)
		return answer(tc)
	})
	if cls != "" {
		f = f.WithEffect(cls)
	}
	return f
}

func journaledRegistry(t *testing.T, j *effect.Journal, tools ...tool.Tool) *tool.Registry {
	t.Helper()
	reg := mustRegistry(t, tools...)
	reg.SetJournal(j)
	return reg
}

func replayed(ret tool.Return) bool {
	b, _ := ret.Metadata[tool.MetaReplayed].(bool)
	return b
}

// A journaled call that completed is replayed, not run, when the same
// call (same session, run, step and position) comes again: its Return is
// the recorded one, under the new call's id.
func TestJournalReplaysACompletedCall(t *testing.T) {
	ctx := context.Background()
	store := effect.NewMemoryStore()
	var n atomic.Int32
	send := counted("send", effect.ClassNonIdempotentWrite, &n, func(*tool.Context) (tool.Result, error) {
		return tool.Result{Content: map[string]any{"message_id": 17.0}, Metadata: map[string]any{"to": "ada"}}, nil
	})
	reg := journaledRegistry(t, &effect.Journal{Store: store}, send)
	c := tool.Call{ID: "call_a", Name: "send", Arguments: json.RawMessage(`{"text":"hi","to":"ada"}`), Index: 1}
	first := reg.Execute(ctx, journalBase(), c)
	if n.Load() != 1 || first.IsError || replayed(first) {
		t.Fatalf("first call: ran %d times, return %+v", n.Load(), first)
	}
	rec, err := store.FindByKey(ctx, effect.Key("s1", "r1", 2, 1))
	if err != nil || rec.Status.State != effect.StateCompleted || rec.Request.Tool != "send" || rec.Request.Class != effect.ClassNonIdempotentWrite {
		t.Fatalf("record = %+v, %v", rec, err)
	}

	// The same call again, its arguments re-encoded and its id new.
	c2 := tool.Call{ID: "call_b", Name: "send", Arguments: json.RawMessage(`{ "to": "ada", "text": "hi" }`), Index: 1}
	again := reg.Execute(ctx, journalBase(), c2)
	if n.Load() != 1 || !replayed(again) || again.ToolCallID != "call_b" {
		t.Fatalf("second call: ran %d times, return %+v", n.Load(), again)
	}
	if !reflect.DeepEqual(again.Content, first.Content) || again.Metadata["to"] != "ada" {
		t.Fatalf("replayed %+v, recorded %+v", again, first)
	}

	// Another position is another effect.
	reg.Execute(ctx, journalBase(), tool.Call{ID: "call_c", Name: "send", Arguments: c.Arguments, Index: 2})
	if n.Load() != 2 {
		t.Fatalf("the call at another position ran %d times in all, want 2", n.Load())
	}
}

// Application errors and paused calls are completed effects too: a replay
// reproduces them, Runtime included. The execution of an approved call is
// an effect of its own, so its first run is not mistaken for a replay of
// the paused call.
func TestJournalRecordsErrorsAndPausedCalls(t *testing.T) {
	ctx := context.Background()
	store := effect.NewMemoryStore()
	var n, m atomic.Int32
	picky := counted("picky", effect.ClassDestructive, &n, func(*tool.Context) (tool.Result, error) {
		return tool.Result{}, tool.ModelRetry("say please")
	})
	gated := counted("gated", effect.ClassDestructive, &m, func(tc *tool.Context) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("needs a person", map[string]any{"risk": "high"})
		}
		return tool.Text("deleted"), nil
	})
	reg := journaledRegistry(t, &effect.Journal{Store: store}, picky, gated)
	for range 2 {
		ret := reg.Execute(ctx, journalBase(), call("c1", "picky", `{}`))
		wantKind(t, ret, tool.ErrorKindModelRetry)
	}
	if n.Load() != 1 {
		t.Fatalf("picky ran %d times, want 1", n.Load())
	}
	var paused []tool.Return
	for range 2 {
		ret := reg.Execute(ctx, journalBase(), tool.Call{ID: "c2", Name: "gated", Arguments: json.RawMessage(`{}`), Index: 1})
		wantKind(t, ret, tool.ErrorKindApprovalRequired)
		paused = append(paused, ret)
	}
	if m.Load() != 1 || !replayed(paused[1]) || paused[1].Runtime.Request["risk"] != "high" {
		t.Fatalf("gated ran %d times; replayed paused return %+v", m.Load(), paused[1])
	}
	approved := journalBase()
	approved.Approval = &tool.Approval{Status: "approved"}
	for range 2 {
		ret := reg.Execute(ctx, approved, tool.Call{ID: "c2", Name: "gated", Arguments: json.RawMessage(`{}`), Index: 1})
		if ret.IsError || ret.Content != "deleted" {
			t.Fatalf("approved execution returned %+v", ret)
		}
	}
	if m.Load() != 2 {
		t.Fatalf("gated ran %d times after approval, want 2 (paused once, approved once)", m.Load())
	}
	if _, err := store.FindByKey(ctx, effect.Key("s1", "r1", 2, 1)+tool.ApprovedKeySuffix); err != nil {
		t.Fatalf("no record of the approved execution: %v", err)
	}
}

// A call outside any run has no identity to be found by: every such call
// is an effect of its own, never a replay of another.
func TestJournalCallsOutsideARunAreNeverReplayed(t *testing.T) {
	var n atomic.Int32
	reg := journaledRegistry(t, &effect.Journal{Store: effect.NewMemoryStore()},
		counted("send", effect.ClassNonIdempotentWrite, &n, func(*tool.Context) (tool.Result, error) { return tool.Text("sent"), nil }))
	for range 2 {
		if ret := reg.Execute(context.Background(), nil, call("c1", "send", `{}`)); ret.IsError || replayed(ret) {
			t.Fatalf("return %+v", ret)
		}
	}
	if n.Load() != 2 {
		t.Fatalf("sent %d times, want 2", n.Load())
	}
}

// Only calls that may change the world are journaled; calls that never
// reach their tool create no record.
func TestJournalSkipsPureCallsAndUnpreparedOnes(t *testing.T) {
	ctx := context.Background()
	store := effect.NewMemoryStore()
	var n atomic.Int32
	ok := func(*tool.Context) (tool.Result, error) { return tool.Text("ok"), nil }
	strict := tool.New("strict", "", map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"},
	}, okHandler).WithEffect(effect.ClassNonIdempotentWrite)
	reg := journaledRegistry(t, &effect.Journal{Store: store},
		counted("pure", effect.ClassPure, &n, ok), counted("read", effect.ClassReadOnly, &n, ok), strict)
	if reg.Journaled("pure") || reg.Journaled("read") || !reg.Journaled("strict") || reg.Journaled("nope") {
		t.Fatal("Journaled disagrees with the classes")
	}
	for i, c := range []tool.Call{
		{ID: "1", Name: "pure", Index: 0}, {ID: "2", Name: "read", Index: 1},
		{ID: "3", Name: "strict", Arguments: json.RawMessage(`{"n":"x"}`), Index: 2},
		{ID: "4", Name: "strict", Arguments: json.RawMessage(`{"n":`), Index: 3},
		{ID: "5", Name: "nope", Index: 4},
	} {
		reg.Execute(ctx, journalBase(), c)
		if _, err := store.FindByKey(ctx, effect.Key("s1", "r1", 2, i)); !errors.Is(err, effect.ErrNotFound) {
			t.Errorf("call %s (%s) left a record: %v", c.ID, c.Name, err)
		}
	}
}

// A record found started (the process running the call stopped) is
// ambiguous: the call is not run again, unless the recovery policy allows
// it for a retry-safe class or a reconciler settles it.
func TestJournalStartedRecords(t *testing.T) {
	ctx := context.Background()
	started := func(t *testing.T, store effect.Store, cls effect.Class, index int) {
		t.Helper()
		rec := effect.Record{Request: effect.Request{ID: effect.NewID(), Key: effect.Key("s1", "r1", 2, index), Tool: "w", Class: cls,
			Input: json.RawMessage(`{}`)}, Status: effect.Status{State: effect.StateStarted}}
		if err := store.CompareAndSwap(ctx, rec, effect.CreateOnly); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		cls      effect.Class
		journal  effect.Journal
		runs     int32
		want     string // "ambiguous", "ran" or "replayed"
		reconErr bool
	}{
		{name: "non-idempotent", cls: effect.ClassNonIdempotentWrite, want: "ambiguous"},
		{name: "idempotent, default policy", cls: effect.ClassIdempotentWrite, want: "ambiguous"},
		{name: "undeclared, default policy", cls: "", want: "ambiguous"},
		{name: "idempotent, retry_safe", cls: effect.ClassIdempotentWrite, journal: effect.Journal{Recovery: effect.RecoveryRetrySafe}, runs: 1, want: "ran"},
		{name: "undeclared, retry_safe", cls: "", journal: effect.Journal{Recovery: effect.RecoveryRetrySafe}, runs: 1, want: "ran"},
		{name: "destructive, retry_safe", cls: effect.ClassDestructive, journal: effect.Journal{Recovery: effect.RecoveryRetrySafe}, want: "ambiguous"},
		{name: "reconciled: not executed", cls: effect.ClassNonIdempotentWrite, runs: 1, want: "ran",
			journal: effect.Journal{Reconciler: effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
				return effect.Reconciliation{Verdict: effect.VerdictNotExecuted}, nil
			})}},
		{name: "reconciled: completed", cls: effect.ClassNonIdempotentWrite, want: "replayed",
			journal: effect.Journal{Reconciler: effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
				return effect.Reconciliation{Verdict: effect.VerdictCompleted, Output: json.RawMessage(`{"sent":true}`)}, nil
			})}},
		{name: "reconciler fails", cls: effect.ClassNonIdempotentWrite, want: "ambiguous", reconErr: true,
			journal: effect.Journal{Reconciler: effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
				return effect.Reconciliation{}, errors.New("target unreachable")
			})}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := effect.NewMemoryStore()
			started(t, store, c.cls, 0)
			var n atomic.Int32
			j := c.journal
			j.Store = store
			reg := journaledRegistry(t, &j, counted("w", c.cls, &n, func(*tool.Context) (tool.Result, error) { return tool.Text("done"), nil }))
			ret := reg.Execute(ctx, journalBase(), tool.Call{ID: "c9", Name: "w", Arguments: json.RawMessage(`{}`)})
			if n.Load() != c.runs {
				t.Fatalf("the tool ran %d times, want %d", n.Load(), c.runs)
			}
			switch c.want {
			case "ambiguous":
				wantKind(t, ret, tool.ErrorKindExecution)
				if !ambiguous(ret) || content(t, ret)[tool.MetaAmbiguous] != true || ret.ToolCallID != "c9" {
					t.Fatalf("not marked ambiguous: %+v", ret)
				}
				if _, ok := ret.PrivateMetadata[tool.MetaJournalError]; ok != c.reconErr {
					t.Fatalf("private metadata %v", ret.PrivateMetadata)
				}
			case "ran":
				if ret.IsError || ret.Content != "done" || replayed(ret) {
					t.Fatalf("return %+v", ret)
				}
			case "replayed":
				if ret.IsError || !replayed(ret) || string(ret.Content.(json.RawMessage)) != `{"sent":true}` {
					t.Fatalf("return %+v", ret)
				}
			}
		})
	}
}

// A call that fails closed leaves its record started: met again, it is
// ambiguous rather than run a second time.
func TestJournalKeepsAnAmbiguousFailureStarted(t *testing.T) {
	ctx := context.Background()
	store := effect.NewMemoryStore()
	var n atomic.Int32
	reg := journaledRegistry(t, &effect.Journal{Store: store}, failing("send", effect.ClassNonIdempotentWrite, &n))
	first := reg.Execute(ctx, journalBase(), call("c1", "send", `{}`))
	if !ambiguous(first) || n.Load() != 1 {
		t.Fatalf("first: %d runs, %+v", n.Load(), first)
	}
	rec, err := store.FindByKey(ctx, effect.Key("s1", "r1", 2, 0))
	if err != nil || rec.Status.State != effect.StateStarted {
		t.Fatalf("record %+v, %v", rec, err)
	}
	second := reg.Execute(ctx, journalBase(), call("c1", "send", `{}`))
	if !ambiguous(second) || n.Load() != 1 {
		t.Fatalf("second: %d runs, %+v", n.Load(), second)
	}
}

// failingStore fails every write, or (completions) only the write that
// records an outcome.
type failingStore struct {
	effect.Store
	completions bool
}

func (f failingStore) CompareAndSwap(ctx context.Context, rec effect.Record, expected uint64) error {
	if !f.completions || rec.Status.State == effect.StateCompleted {
		return errors.New("disk full at /var/lib/secret")
	}
	return f.Store.CompareAndSwap(ctx, rec, expected)
}

// A call the journal cannot record does not run; one whose completion
// cannot be recorded ran, and says so.
func TestJournalStoreFailures(t *testing.T) {
	ctx := context.Background()
	var n atomic.Int32
	ok := func(*tool.Context) (tool.Result, error) { return tool.Text("sent"), nil }
	reg := journaledRegistry(t, &effect.Journal{Store: failingStore{Store: effect.NewMemoryStore()}}, counted("send", effect.ClassNonIdempotentWrite, &n, ok))
	ret := reg.Execute(ctx, journalBase(), call("c1", "send", `{}`))
	wantKind(t, ret, tool.ErrorKindExecution)
	if n.Load() != 0 || content(t, ret)["message"] != "the effect journal could not record this call, so it did not run" {
		t.Fatalf("%d runs, return %+v", n.Load(), ret)
	}
	if msg, _ := ret.PrivateMetadata[tool.MetaJournalError].(string); msg == "" {
		t.Fatalf("the store's error is not in private metadata: %+v", ret.PrivateMetadata)
	}

	reg = journaledRegistry(t, &effect.Journal{Store: failingStore{Store: effect.NewMemoryStore(), completions: true}},
		counted("send", effect.ClassNonIdempotentWrite, &n, ok))
	ret = reg.Execute(ctx, journalBase(), call("c1", "send", `{}`))
	if n.Load() != 1 || ret.IsError || ret.Content != "sent" || ret.Metadata[tool.MetaJournalError] == nil {
		t.Fatalf("%d runs, return %+v", n.Load(), ret)
	}
}

// barrierStore holds every write of a record until n records are being
// created at once, or the deadline passes.
type barrierStore struct {
	effect.Store
	arrived chan struct{}
	n       int
	mu      sync.Mutex
	count   int
}

func (b *barrierStore) CompareAndSwap(ctx context.Context, rec effect.Record, expected uint64) error {
	if expected == effect.CreateOnly {
		b.mu.Lock()
		b.count++
		if b.count == b.n {
			close(b.arrived)
		}
		b.mu.Unlock()
		select {
		case <-b.arrived:
		case <-time.After(5 * time.Second):
			return errors.New("the other calls never reached the journal")
		}
	}
	return b.Store.CompareAndSwap(ctx, rec, expected)
}

// Journaled Starter calls of a parallel batch each get a goroutine: a
// journal write that blocks does not hold up the batch's other calls.
func TestJournaledStartersDoNotBlockTheBatch(t *testing.T) {
	const n = 8
	store := &barrierStore{Store: effect.NewMemoryStore(), arrived: make(chan struct{}), n: n}
	var tools []tool.Tool
	var names []string
	var starts atomic.Int32
	for i := range n {
		name := string(rune('a' + i))
		tools = append(tools, newAsync(name, func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
			starts.Add(1)
			go done(tool.Text("ok"), nil)
		}))
		names = append(names, name)
	}
	reg := journaledRegistry(t, &effect.Journal{Store: store}, tools...)
	calls := batchOf(names...)
	for i := range calls {
		calls[i].Index = i
	}
	rets := reg.ExecuteBatch(context.Background(), journalBase(), calls, tool.BatchOptions{})
	for i, ret := range rets {
		if ret.IsError || ret.Content != "ok" || ret.ToolCallID != calls[i].ID {
			t.Fatalf("call %d returned %+v", i, ret)
		}
	}
	if starts.Load() != n {
		t.Fatalf("%d starts, want %d", starts.Load(), n)
	}
}
