package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// asyncTool is a Starter answered from other goroutines by answer.
type asyncTool struct {
	name    string
	starts  atomic.Int32
	retries []int
	mu      sync.Mutex
	answer  func(ctx context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error))
}

func (a *asyncTool) Definition() tool.Definition {
	return tool.Definition{Name: a.name, Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}},
	}}
}

func (a *asyncTool) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, tool.UserError("the blocking path was used")
}

func (a *asyncTool) Start(ctx context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
	a.starts.Add(1)
	a.mu.Lock()
	a.retries = append(a.retries, tc.Retry)
	a.mu.Unlock()
	a.answer(ctx, tc, args, done)
}

func newAsync(name string, answer func(context.Context, *tool.Context, json.RawMessage, func(tool.Result, error))) *asyncTool {
	return &asyncTool{name: name, answer: answer}
}

func batchOf(names ...string) []tool.Call {
	out := make([]tool.Call, len(names))
	for i, n := range names {
		out[i] = tool.Call{ID: fmt.Sprintf("c%d", i), Name: n, Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
	}
	return out
}

func TestStartedCallsCompleteInModelOrder(t *testing.T) {
	// Every call is answered only once all have started: this would hang
	// if the batch waited for each call before starting the next.
	const n = 20
	var started sync.WaitGroup
	started.Add(n)
	var tools []tool.Tool
	var names []string
	for i := range n {
		name := fmt.Sprintf("a%d", i)
		names = append(names, name)
		tools = append(tools, newAsync(name, func(_ context.Context, _ *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
			started.Done()
			go func() {
				started.Wait()
				done(tool.JSON(args), nil)
			}()
		}))
	}
	r, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	rets := r.ExecuteBatch(context.Background(), nil, batchOf(names...), tool.BatchOptions{})
	for i, ret := range rets {
		if ret.IsError || ret.ToolCallID != fmt.Sprintf("c%d", i) || string(ret.Content.(json.RawMessage)) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("return %d: %+v", i, ret)
		}
	}
}

func TestStartedCallsRetryTimeOutAndValidate(t *testing.T) {
	flaky := newAsync("flaky", nil)
	flaky.answer = func(_ context.Context, tc *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		if tc.Retry < 2 {
			go done(tool.Result{}, errors.New("transient"))
			return
		}
		go done(tool.Text("ok"), nil)
	}
	broken := newAsync("broken", func(context.Context, *tool.Context, json.RawMessage, func(tool.Result, error)) {
		panic("boom")
	})
	slow := newAsync("slow", func(ctx context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		go func() {
			<-ctx.Done()
			done(tool.Result{}, ctx.Err())
		}()
	})
	failing := newAsync("failing", func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		done(tool.Result{}, errors.New("always"))
	})
	never := newAsync("never", func(context.Context, *tool.Context, json.RawMessage, func(tool.Result, error)) {
		t.Error("a call with invalid arguments was started")
	})
	r, err := tool.NewRegistry(flaky, broken, slow, failing, never)
	if err != nil {
		t.Fatal(err)
	}
	r.SetTimeout(20 * time.Millisecond)
	r.SetMaxRetries(2)
	calls := batchOf("flaky", "broken", "slow", "failing")
	calls = append(calls, tool.Call{ID: "bad", Name: "never", Arguments: json.RawMessage(`{"n":"x"}`)})
	rets := r.ExecuteBatch(context.Background(), nil, calls, tool.BatchOptions{})
	if rets[0].IsError || rets[0].Content != "ok" || fmt.Sprint(flaky.retries) != "[0 1 2]" {
		t.Fatalf("flaky: %+v retries %v", rets[0], flaky.retries)
	}
	if rets[1].ErrorKind() != tool.ErrorKindExecution || rets[1].PrivateMetadata["stack"] == nil {
		t.Fatalf("broken: %+v", rets[1])
	}
	if rets[2].ErrorKind() != tool.ErrorKindTimeout || rets[2].Metadata["timeout_ms"] != int64(20) {
		t.Fatalf("slow: %+v", rets[2])
	}
	if rets[3].ErrorKind() != tool.ErrorKindExecution || rets[3].Metadata["tool_retry"] != 2 || failing.starts.Load() != 3 {
		t.Fatalf("failing: %+v starts %d", rets[3], failing.starts.Load())
	}
	if rets[4].ErrorKind() != tool.ErrorKindInvalidArguments {
		t.Fatalf("invalid: %+v", rets[4])
	}
}

// A started attempt's outcome counts once: a second done of the same
// attempt, or a late done of an earlier one, is ignored.
func TestStartedAttemptsCountTheirFirstDoneOnly(t *testing.T) {
	var first func(tool.Result, error)
	repeat := newAsync("repeat", nil)
	repeat.answer = func(_ context.Context, tc *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		if tc.Retry == 0 {
			first = done
			done(tool.Result{}, errors.New("transient"))
			done(tool.Text("second done of the first attempt"), nil)
			return
		}
		first(tool.Text("late done of the first attempt"), nil)
		done(tool.Text("ok"), nil)
		done(tool.Result{}, errors.New("second done of the second attempt"))
	}
	r, err := tool.NewRegistry(repeat)
	if err != nil {
		t.Fatal(err)
	}
	ret := r.Execute(context.Background(), nil, batchOf("repeat")[0])
	if ret.IsError || ret.Content != "ok" || repeat.starts.Load() != 2 {
		t.Fatalf("%+v starts %d", ret, repeat.starts.Load())
	}
}

func TestStartedCallsAreCancelledWithTheRun(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	wait := func(ctx context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		started.Done()
		go func() {
			<-ctx.Done()
			done(tool.Result{}, ctx.Err())
		}()
	}
	r, err := tool.NewRegistry(newAsync("w1", wait), newAsync("w2", wait))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { started.Wait(); cancel() }()
	for _, ret := range r.ExecuteBatch(ctx, nil, batchOf("w1", "w2"), tool.BatchOptions{}) {
		if ret.ErrorKind() != tool.ErrorKindCancelled {
			t.Fatalf("return %+v", ret)
		}
	}
}

// Go hooks of started calls run on goroutines of their phase: before-hooks
// not one after another on the batch's goroutine, after-hooks not on the
// goroutine that called done, which may deliver other outcomes.
func TestAfterHooksRunOnStartedCalls(t *testing.T) {
	deliver := make(chan func())
	delivered := make(chan struct{})
	go func() {
		for f := range deliver {
			f()
		}
		close(delivered)
	}()
	a := newAsync("a", func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		deliver <- func() { done(tool.Text("started"), nil) }
	})
	b := newAsync("b", a.answer)
	r, err := tool.NewRegistry(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// The calls' hooks of each phase wait for each other: on one
	// goroutine, the first would keep the second from running.
	var before, after sync.WaitGroup
	before.Add(2)
	after.Add(2)
	r.AddHook(tool.Hook{
		Before: func(context.Context, *tool.Context, map[string]any) error { before.Done(); before.Wait(); return nil },
		After:  func(context.Context, *tool.Context, *tool.Outcome) error { after.Done(); after.Wait(); return nil },
	})
	rets := r.ExecuteBatch(context.Background(), nil, batchOf("a", "b"), tool.BatchOptions{})
	close(deliver)
	<-delivered
	if a.starts.Load() != 1 || b.starts.Load() != 1 || rets[0].Content != "started" || rets[1].Content != "started" {
		t.Fatalf("starts %d %d returns %+v", a.starts.Load(), b.starts.Load(), rets)
	}
}
