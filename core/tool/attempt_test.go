package tool_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// The same call must end in the same Return whether it is called (Execute
// on a plain tool), started and waited for (Execute on a Starter), or
// started by a parallel batch. These tests pin the rules that used to
// differ between the blocking and the started paths.

// starterAnswering is a Starter named name whose Start runs answer.
func starterAnswering(name string, answer func(context.Context, *tool.Context, json.RawMessage, func(tool.Result, error))) *asyncTool {
	return newAsync(name, answer)
}

// everyPath returns the Return of one call to a tool named "t" through
// each path: plain is a plain tool behaving like started; other is a
// second tool the parallel batch needs.
func everyPath(t *testing.T, plain tool.Tool, started *asyncTool, c tool.Call, timeout time.Duration) map[string]tool.Return {
	t.Helper()
	other := tool.New("other", "", nil, okHandler)
	callReg := mustRegistry(t, plain, other)
	startReg := mustRegistry(t, started, other)
	for _, r := range []*tool.Registry{callReg, startReg} {
		r.SetTimeout(timeout)
		r.SetMaxRetries(1)
	}
	batch := []tool.Call{c, call("o", "other", `{}`)}
	out := map[string]tool.Return{
		"called":           callReg.Execute(context.Background(), nil, c),
		"called in batch":  callReg.ExecuteBatch(context.Background(), nil, batch, tool.BatchOptions{})[0],
		"started":          startReg.Execute(context.Background(), nil, c),
		"started in batch": startReg.ExecuteBatch(context.Background(), nil, batch, tool.BatchOptions{})[0],
	}
	if started.starts.Load() == 0 {
		t.Fatal("the Starter was never started")
	}
	return out
}

// sameReturns fails unless every Return equals the called one, ignoring
// private metadata (it holds a goroutine's stack).
func sameReturns(t *testing.T, rets map[string]tool.Return) tool.Return {
	t.Helper()
	want := rets["called"]
	want.PrivateMetadata = nil
	for path, ret := range rets {
		ret.PrivateMetadata = nil
		if !reflect.DeepEqual(mustJSON(t, ret), mustJSON(t, want)) {
			t.Errorf("%s:\n got %s\nwant %s", path, mustJSON(t, ret), mustJSON(t, want))
		}
	}
	return want
}

func TestPanicReturnIsTheSameOnEveryPath(t *testing.T) {
	plain := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		panic("boom")
	})
	started := starterAnswering("t", func(context.Context, *tool.Context, json.RawMessage, func(tool.Result, error)) {
		panic("boom")
	})
	ret := sameReturns(t, everyPath(t, plain, started, call("1", "t", `{}`), 0))
	wantKind(t, ret, tool.ErrorKindExecution)
	if c := content(t, ret); c["error"] != "tool t execution failed: tool panicked: boom" || !jsonEqual(t, c["tool_retry"], 1) {
		t.Fatalf("content = %v", c)
	}
}

// A tool that answers the end of its attempt with a cancellation of its
// own times out, as an abandoned tool does, on every path.
func TestTimeoutReturnIsTheSameOnEveryPath(t *testing.T) {
	plain := tool.New("t", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, tool.Cancelled("stopped")
	})
	started := starterAnswering("t", func(ctx context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		go func() {
			<-ctx.Done()
			done(tool.Result{}, tool.Cancelled("stopped"))
		}()
	})
	ret := sameReturns(t, everyPath(t, plain, started, call("1", "t", `{}`), 10*time.Millisecond))
	wantKind(t, ret, tool.ErrorKindTimeout)
	if c := content(t, ret); c["error"] != "tool t execution exceeded the 10ms timeout" || !jsonEqual(t, c["timeout_ms"], 10) {
		t.Fatalf("content = %v", c)
	}
}

// A cooperative tool is called without a watching goroutine; its
// cancellation at the deadline is the same timeout.
func TestCooperativeToolTimesOutLikeOthers(t *testing.T) {
	f := &cooperative{tool.New("t", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, tool.Cancelled("stopped")
	}).WithTimeout(10 * time.Millisecond)}
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "t", `{}`))
	wantKind(t, ret, tool.ErrorKindTimeout)
}

type cooperative struct{ *tool.Function }

func (cooperative) Cooperative() bool { return true }

// A paused call records the arguments its tool received (here null,
// which the tool receives as {}) on every path.
func TestPausedCallRecordsArgumentsAlikeOnEveryPath(t *testing.T) {
	plain := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.CallDeferred("later", nil)
	})
	started := starterAnswering("t", func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		done(tool.Result{}, tool.CallDeferred("later", nil))
	})
	ret := sameReturns(t, everyPath(t, plain, started, call("1", "t", `null`), 0))
	wantKind(t, ret, tool.ErrorKindCallDeferred)
	if got := string(ret.Runtime.Arguments); got != `{}` {
		t.Fatalf("arguments = %s", got)
	}
}

// A call paused before its tool ran (by a validator) records the model's
// arguments on every path.
func TestCallPausedByValidatorRecordsTheModelsArguments(t *testing.T) {
	pause := func(*tool.Context, map[string]any) error { return tool.ApprovalRequired("check", nil) }
	plain := tool.New("t", "", nil, okHandler).WithArgumentValidator(pause)
	started := &validated{starterAnswering("t", func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		done(tool.Text("ran"), nil)
	}), pause}
	other := tool.New("other", "", nil, okHandler)
	c := call("1", "t", `{"n":1}`)
	batch := []tool.Call{c, call("o", "other", `{}`)}
	rets := map[string]tool.Return{
		"called":           mustRegistry(t, plain, other).Execute(context.Background(), nil, c),
		"started in batch": mustRegistry(t, started, other).ExecuteBatch(context.Background(), nil, batch, tool.BatchOptions{})[0],
	}
	ret := sameReturns(t, rets)
	wantKind(t, ret, tool.ErrorKindApprovalRequired)
	if got := string(ret.Runtime.Arguments); got != `{"n":1}` {
		t.Fatalf("arguments = %s", got)
	}
}

// validated is a Starter with an argument validator.
type validated struct {
	*asyncTool
	v tool.ArgumentValidator
}

func (v *validated) ToolConfig() *tool.Config {
	return &tool.Config{Validators: []tool.ArgumentValidator{v.v}}
}

// Execute is a started call plus a wait: a Starter is started, not called.
func TestExecuteStartsStarters(t *testing.T) {
	a := starterAnswering("a", func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		go done(tool.Text("started"), nil)
	})
	ret := mustRegistry(t, a).Execute(context.Background(), nil, call("1", "a", `{}`))
	if ret.IsError || ret.Content != "started" || a.starts.Load() != 1 {
		t.Fatalf("return %+v, starts %d", ret, a.starts.Load())
	}
}

// A retried started call starts each attempt with its own retry number,
// whichever goroutine delivered the previous outcome.
func TestExecuteRetriesStartedAttempts(t *testing.T) {
	a := starterAnswering("a", nil)
	a.answer = func(_ context.Context, tc *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		if tc.Retry < 2 {
			go done(tool.Result{}, context.DeadlineExceeded) // unexpected: re-executed
			return
		}
		done(tool.Text("ok"), nil)
	}
	r := mustRegistry(t, a)
	r.SetMaxRetries(2)
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "a", `{}`)))
	if a.starts.Load() != 3 {
		t.Fatalf("starts = %d", a.starts.Load())
	}
}
