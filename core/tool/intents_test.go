package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/tool"
)

func cancelIntent(process string) intent.Intents {
	return intent.V1(&intent.CancelProcess{SessionID: "s", ProcessID: process})
}

// recordingRealiser runs every call and records the intents of its final
// Return.
type recordingRealiser struct {
	mu   sync.Mutex
	seen map[string]intent.Intents
}

func (x *recordingRealiser) RealiseCall(ctx context.Context, tc *tool.Context, call tool.Call, run func(context.Context) tool.Return) tool.Return {
	ret := run(ctx)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.seen == nil {
		x.seen = map[string]intent.Intents{}
	}
	if ret.Runtime != nil {
		in, err := intent.BatchOf(ret.Runtime.Intents)
		if err != nil {
			panic(err)
		}
		x.seen[call.ID] = in
	}
	return ret
}

func TestIntentsOfTheFinalAttemptReachTheRealiser(t *testing.T) {
	attempts := 0
	flaky := tool.New("flaky", "", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		attempts++
		if attempts == 1 {
			// An unexpected failure is re-executed; what it declared is discarded.
			return tool.Result{Intents: cancelIntent("first")}, errors.New("boom")
		}
		return tool.Result{Content: "ok", Intents: cancelIntent("second")}, nil
	})
	r := &tool.Registry{}
	if err := r.Add(flaky); err != nil {
		t.Fatal(err)
	}
	x := &recordingRealiser{}
	r.SetIntents(x)
	ret := r.Execute(context.Background(), nil, tool.Call{ID: "c1", Name: "flaky", Arguments: json.RawMessage(`{}`)})
	if ret.IsError || attempts != 2 {
		t.Fatalf("return %+v after %d attempts", ret, attempts)
	}
	got := x.seen["c1"]
	if len(got.Intents) != 1 || got.Intents[0].(*intent.CancelProcess).ProcessID != "second" {
		t.Fatalf("the realiser saw %+v, want the second attempt's intent only", got)
	}
	b, err := json.Marshal(ret)
	if err != nil {
		t.Fatal(err)
	}
	if json.Valid(b) && string(b) != "" && containsKey(t, b, tool.MetaIntents) {
		t.Fatalf("a return's JSON carries its unrealised intents: %s", b)
	}
}

func containsKey(t *testing.T, b []byte, key string) bool {
	t.Helper()
	var v struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	_, ok := v.Metadata[key]
	return ok
}

func TestPausedCallWithIntentsIsAUserError(t *testing.T) {
	for name, pause := range map[string]error{
		"approval": tool.ApprovalRequired("needs a person", nil),
		"deferred": tool.CallDeferred("later", nil),
	} {
		t.Run(name, func(t *testing.T) {
			paused := tool.New("paused", "", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
				return tool.Result{Intents: cancelIntent("p")}, pause
			})
			r := &tool.Registry{}
			if err := r.Add(paused); err != nil {
				t.Fatal(err)
			}
			r.SetIntents(&recordingRealiser{})
			ret := r.Execute(context.Background(), nil, tool.Call{ID: "c", Name: "paused"})
			if ret.ErrorKind() != tool.ErrorKindUserError {
				t.Fatalf("error kind %q, want user_error: %+v", ret.ErrorKind(), ret.Content)
			}
			if ret.Runtime != nil && tool.Declares(ret.Runtime.Intents) {
				t.Fatal("a refused pause still carries its intents")
			}
		})
	}
}

func TestIntentsWithoutARealiserAreAUserError(t *testing.T) {
	declares := tool.New("declares", "", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "ok", Intents: cancelIntent("p")}, nil
	})
	r := &tool.Registry{}
	if err := r.Add(declares); err != nil {
		t.Fatal(err)
	}
	ret := r.Execute(context.Background(), nil, tool.Call{ID: "c", Name: "declares"})
	if ret.ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("error kind %q, want user_error", ret.ErrorKind())
	}
}

func TestRealiserWrapsEveryCallOfAParallelBatch(t *testing.T) {
	r := &tool.Registry{}
	for _, n := range []string{"a", "b", "c"} {
		if err := r.Add(tool.New(n, "", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			return tool.Result{Content: tc.ToolCallID, Intents: cancelIntent(tc.ToolCallID)}, nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	x := &recordingRealiser{}
	r.SetIntents(x)
	calls := []tool.Call{{ID: "1", Name: "a"}, {ID: "2", Name: "b", Index: 1}, {ID: "3", Name: "c", Index: 2}}
	rets := r.ExecuteBatch(context.Background(), nil, calls, tool.BatchOptions{})
	for i, ret := range rets {
		if ret.Content != calls[i].ID {
			t.Fatalf("return %d is %v", i, ret.Content)
		}
		if got := x.seen[calls[i].ID]; len(got.Intents) != 1 {
			t.Fatalf("call %s: the realiser saw %+v", calls[i].ID, got)
		}
	}
}

// A journaled call whose effect completed but whose intents were never
// committed (the process stopped in between) hands its recorded intents
// on when the effect journal replays it.
func TestEffectJournalReplayCarriesTheIntents(t *testing.T) {
	var runs atomic.Int32
	send := counted("send", effect.ClassNonIdempotentWrite, &runs, func(*tool.Context) (tool.Result, error) {
		return tool.Result{Content: "sent", Intents: cancelIntent("p")}, nil
	})
	reg := journaledRegistry(t, &effect.Journal{Store: effect.NewMemoryStore()}, send)
	x := &recordingRealiser{}
	reg.SetIntents(x)
	call := tool.Call{ID: "c1", Name: "send", Arguments: json.RawMessage(`{}`)}
	if ret := reg.Execute(context.Background(), journalBase(), call); ret.IsError {
		t.Fatalf("first call: %+v", ret)
	}
	x.seen = nil // what the first run declared was lost with its process
	ret := reg.Execute(context.Background(), journalBase(), tool.Call{ID: "c2", Name: "send", Arguments: json.RawMessage(`{}`)})
	if !replayed(ret) || runs.Load() != 1 {
		t.Fatalf("the second call was not replayed: %+v (%d runs)", ret, runs.Load())
	}
	got := x.seen["c2"]
	if len(got.Intents) != 1 || got.Intents[0].(*intent.CancelProcess).ProcessID != "p" {
		t.Fatalf("the replayed return carries %+v", got)
	}
}

// A call the realiser answers from its record (a redriven run) never runs,
// yet the calls ordered after it on a resource key still run: a replay
// releases its place in the batch's order like a finished call.
func TestReplayedCallReleasesItsResourceKey(t *testing.T) {
	r := &tool.Registry{}
	w := tool.New("w", "", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "ran " + tc.ToolCallID}, nil
	}).WithResourceArgument("path", tool.AccessWrite)
	if err := r.Add(w); err != nil {
		t.Fatal(err)
	}
	r.SetIntents(tool.IntentRealiserFunc(func(ctx context.Context, tc *tool.Context, call tool.Call, run func(context.Context) tool.Return) tool.Return {
		if call.ID == "1" {
			return tool.Return{ToolCallID: call.ID, Name: call.Name, Content: "recorded 1"}
		}
		return run(ctx)
	}))
	args := json.RawMessage(`{"path":"a"}`)
	calls := []tool.Call{{ID: "1", Name: "w", Arguments: args}, {ID: "2", Name: "w", Arguments: args, Index: 1}, {ID: "3", Name: "w", Arguments: args, Index: 2}}
	done := make(chan []tool.Return, 1)
	go func() { done <- r.ExecuteBatch(context.Background(), nil, calls, tool.BatchOptions{}) }()
	select {
	case rets := <-done:
		for i, want := range []string{"recorded 1", "ran 2", "ran 3"} {
			if rets[i].Content != want {
				t.Fatalf("return %d is %v, want %q", i, rets[i].Content, want)
			}
		}
	case <-time.After(30 * time.Second): // a bound on a hang, not a measurement
		t.Fatal("calls after a replayed call on its key never ran")
	}
}
