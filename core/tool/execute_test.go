package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestExecuteRejectsBadJSON(t *testing.T) {
	var ran atomic.Int32
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("ok"), nil
	})
	hookRan := false
	r := mustRegistry(t, f)
	r.AddHook(tool.Hook{Before: func(context.Context, *tool.Context, map[string]any) error { hookRan = true; return nil }})
	tests := []struct{ args, want string }{
		{`{"a":`, "must be valid JSON"},
		{`not json`, "must be valid JSON"},
		{`{"a":1} trailing`, "must be valid JSON"},
		{`[1,2]`, "must be a JSON object"},
		{`"str"`, "must be a JSON object"},
		{`42`, "must be a JSON object"},
		{`true`, "must be a JSON object"},
		{`{"big":1e400}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			ret := r.Execute(context.Background(), nil, call("1", "t", tt.args))
			if tt.want == "" {
				// A number too large for float64 is still a JSON object:
				// it must not be reported as "not an object".
				if k := ret.ErrorKind(); k != "" && k != tool.ErrorKindInvalidArguments {
					t.Fatalf("kind = %q", k)
				}
				if k := ret.ErrorKind(); k == tool.ErrorKindInvalidArguments && strings.Contains(content(t, ret)["message"].(string), "must be a JSON object") {
					t.Fatalf("object reported as non-object: %v", content(t, ret)["message"])
				}
				return
			}
			wantKind(t, ret, tool.ErrorKindInvalidArguments)
			if msg := content(t, ret)["message"].(string); !strings.Contains(msg, tt.want) {
				t.Fatalf("message %q does not contain %q", msg, tt.want)
			}
		})
	}
	if ran.Load() > 1 { // only the 1e400 case may run
		t.Fatalf("tool ran %d times on bad JSON", ran.Load())
	}
	_ = hookRan
}

func TestExecuteHooksDoNotRunOnBadJSON(t *testing.T) {
	var hooks atomic.Int32
	r := mustRegistry(t, tool.New("t", "", nil, okHandler))
	r.AddHook(tool.Hook{
		Before: func(context.Context, *tool.Context, map[string]any) error { hooks.Add(1); return nil },
		After:  func(context.Context, *tool.Context, *tool.Outcome) error { hooks.Add(1); return nil },
	})
	wantKind(t, r.Execute(context.Background(), nil, call("1", "t", `{`)), tool.ErrorKindInvalidArguments)
	wantKind(t, r.Execute(context.Background(), nil, call("1", "nope", `{}`)), tool.ErrorKindNotFound)
	if hooks.Load() != 0 {
		t.Fatalf("hooks ran %d times", hooks.Load())
	}
}

func TestExecuteEmptyArguments(t *testing.T) {
	var got []string
	f := tool.New("t", "", nil, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		got = append(got, string(args))
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	for _, a := range []string{``, `null`, ` null `, `{}`} {
		wantSuccess(t, r.Execute(context.Background(), nil, call("1", "t", a)))
	}
	for _, g := range got {
		var m map[string]any
		if err := json.Unmarshal([]byte(g), &m); err != nil || m == nil {
			t.Fatalf("tool received %q, want a JSON object", g)
		}
	}
}

// Large integers survive validators and hooks unchanged.
func TestExecuteKeepsNumberPrecision(t *testing.T) {
	var got string
	f := tool.New("t", "", map[string]any{"properties": map[string]any{"id": map[string]any{"type": "integer"}}},
		func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
			got = string(args)
			return tool.Text("ok"), nil
		}).WithArgumentValidator(func(_ *tool.Context, args map[string]any) error {
		args["seen"] = true
		return nil
	})
	r := mustRegistry(t, f)
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "t", `{"id":9007199254740993}`)))
	if !strings.Contains(got, `9007199254740993`) {
		t.Fatalf("tool received %s, want the exact id", got)
	}
}

func TestArgumentValidators(t *testing.T) {
	var order []string
	var seen json.RawMessage
	f := tool.New("v", "", map[string]any{
		"properties": map[string]any{
			"allow":      map[string]any{"type": "boolean"},
			"path":       map[string]any{"type": "string", "pattern": "^/"},
			"normalized": map[string]any{"type": "boolean"},
		},
		"required": []any{"allow"},
	}, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		order = append(order, "tool")
		seen = args
		return tool.Text("ok"), nil
	}).WithArgumentValidator(func(tc *tool.Context, args map[string]any) error {
		order = append(order, "v1")
		if tc.ToolName != "v" {
			return fmt.Errorf("validator saw tool %q", tc.ToolName)
		}
		if args["allow"] != true {
			return tool.InvalidArguments("allow must be true")
		}
		args["normalized"] = true
		// Validators run before the schema: normalising into a valid shape
		// makes the call pass.
		if p, ok := args["path"].(string); ok && !strings.HasPrefix(p, "/") {
			args["path"] = "/" + p
		}
		return nil
	}).WithArgumentValidator(func(_ *tool.Context, args map[string]any) error {
		order = append(order, "v2")
		if args["normalized"] != true {
			return errors.New("second validator did not see the first's change")
		}
		if args["path"] == "/forbidden" {
			return errors.New("path is forbidden")
		}
		return nil
	})
	r := mustRegistry(t, f)

	ret := r.Execute(context.Background(), nil, call("1", "v", `{"allow":true,"path":"tmp"}`))
	wantSuccess(t, ret)
	if !slices.Equal(order, []string{"v1", "v2", "tool"}) {
		t.Fatalf("order = %v", order)
	}
	if !jsonEqual(t, seen, map[string]any{"allow": true, "path": "/tmp", "normalized": true}) {
		t.Fatalf("tool saw %s", seen)
	}

	order = nil
	ret = r.Execute(context.Background(), nil, call("2", "v", `{"allow":false}`))
	wantKind(t, ret, tool.ErrorKindInvalidArguments)
	if content(t, ret)["message"] != "allow must be true" {
		t.Fatalf("message = %v", content(t, ret)["message"])
	}
	if !slices.Equal(order, []string{"v1"}) {
		t.Fatalf("order after rejection = %v", order)
	}

	// A plain error from a validator becomes invalid_arguments.
	order = nil
	ret = r.Execute(context.Background(), nil, call("3", "v", `{"allow":true,"path":"forbidden"}`))
	wantKind(t, ret, tool.ErrorKindInvalidArguments)
	if content(t, ret)["message"] != "path is forbidden" {
		t.Fatalf("message = %v", content(t, ret)["message"])
	}
	if slices.Contains(order, "tool") {
		t.Fatal("tool ran after rejection")
	}
}

func TestValidatorKeepsErrorKind(t *testing.T) {
	f := tool.New("v", "", nil, okHandler).WithArgumentValidator(func(*tool.Context, map[string]any) error {
		return tool.UserError("not configured")
	})
	wantKind(t, mustRegistry(t, f).Execute(context.Background(), nil, call("1", "v", `{}`)), tool.ErrorKindUserError)
}

func TestInternalRetryThenSuccess(t *testing.T) {
	var retries []int
	var maxes []int
	f := tool.New("flaky", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		retries = append(retries, tc.Retry)
		maxes = append(maxes, tc.MaxRetries)
		if len(retries) < 3 {
			return tool.Result{}, errors.New("transient")
		}
		if !tc.LastAttempt() == (tc.Retry >= tc.MaxRetries) {
			return tool.Result{}, errors.New("LastAttempt inconsistent")
		}
		return tool.Text("done"), nil
	})
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "flaky", `{}`))
	wantSuccess(t, ret)
	if ret.Content != "done" {
		t.Fatalf("content = %v", ret.Content)
	}
	if !slices.Equal(retries, []int{0, 1, 2}) {
		t.Fatalf("retries seen = %v, want [0 1 2]", retries)
	}
	if !slices.Equal(maxes, []int{3, 3, 3}) {
		t.Fatalf("max retries seen = %v", maxes)
	}
}

func TestInternalRetryExhausted(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*tool.Registry, *tool.Function)
		max  int
	}{
		{"default", func(*tool.Registry, *tool.Function) {}, 3},
		{"tool", func(_ *tool.Registry, f *tool.Function) { f.WithMaxRetries(1) }, 1},
		{"registry", func(r *tool.Registry, _ *tool.Function) { r.SetMaxRetries(5) }, 5},
		{"zero", func(_ *tool.Registry, f *tool.Function) { f.WithMaxRetries(0) }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls int
			var last *tool.Context
			f := tool.New("broken", "", nil, func(_ context.Context, c *tool.Context, _ json.RawMessage) (tool.Result, error) {
				calls++
				cp := *c
				last = &cp
				return tool.Result{}, fmt.Errorf("attempt %d failed", calls)
			})
			var r tool.Registry
			tc.set(&r, f)
			if err := r.Add(f); err != nil {
				t.Fatal(err)
			}
			ret := r.Execute(context.Background(), nil, call("1", "broken", `{}`))
			wantKind(t, ret, tool.ErrorKindExecution)
			if calls != tc.max+1 {
				t.Fatalf("calls = %d, want %d", calls, tc.max+1)
			}
			if !last.LastAttempt() {
				t.Fatal("final attempt is not LastAttempt")
			}
			c := content(t, ret)
			if !jsonEqual(t, c["tool_retry"], tc.max) || !jsonEqual(t, c["max_retries"], tc.max) ||
				!jsonEqual(t, ret.Metadata["tool_retry"], tc.max) || !jsonEqual(t, ret.Metadata["max_retries"], tc.max) {
				t.Fatalf("retry fields: content %v metadata %v", c, ret.Metadata)
			}
			if c["message"] != fmt.Sprintf("attempt %d failed", calls) {
				t.Fatalf("message = %v", c["message"])
			}
			if c["unexpected"] != true {
				t.Fatal("execution error not unexpected")
			}
		})
	}
}

func TestNonExecutionErrorsAreNotRetried(t *testing.T) {
	for _, k := range tool.ErrorKinds() {
		if k == tool.ErrorKindExecution || k == tool.ErrorKindNotFound {
			continue
		}
		t.Run(string(k), func(t *testing.T) {
			var calls int
			e := &tool.Error{Kind: k, Message: "m"}
			f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
				calls++
				return tool.Result{}, e
			})
			ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "t", `{}`))
			wantKind(t, ret, k)
			if calls != 1 {
				t.Fatalf("%s retried: %d calls", k, calls)
			}
			if _, has := ret.Metadata["tool_retry"]; has {
				t.Fatal("non-execution error carries tool_retry")
			}
		})
	}
}

func TestBaseRetryFromBatchOptions(t *testing.T) {
	var seen []int
	f := tool.New("t", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		seen = append(seen, tc.Retry)
		if len(seen) == 1 {
			return tool.Result{}, errors.New("once")
		}
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	rets := r.ExecuteBatch(context.Background(), &tool.Context{RunID: "run"}, []tool.Call{call("1", "t", `{}`)},
		tool.BatchOptions{Retries: map[string]int{"t": 2}})
	wantSuccess(t, rets[0])
	if !slices.Equal(seen, []int{2, 3}) {
		t.Fatalf("retries seen = %v, want [2 3]", seen)
	}
}

func TestTimeoutReturn(t *testing.T) {
	started := make(chan struct{})
	f := tool.New("slow", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		close(started)
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}).WithTimeout(20 * time.Millisecond)
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "slow", `{}`))
	<-started
	wantKind(t, ret, tool.ErrorKindTimeout)
	if !jsonEqual(t, ret.Metadata["timeout_ms"], 20) || !jsonEqual(t, content(t, ret)["timeout_ms"], 20) {
		t.Fatalf("timeout_ms = %v / %v", ret.Metadata["timeout_ms"], content(t, ret)["timeout_ms"])
	}
	if !strings.Contains(content(t, ret)["error"].(string), "exceeded the 20ms timeout") {
		t.Fatalf("error = %v", content(t, ret)["error"])
	}
}

// A tool that returns its own error once its context ends still times out,
// and is not retried as an execution failure.
func TestTimeoutWinsOverErrorCausedByCancellation(t *testing.T) {
	for i := range 20 {
		var calls atomic.Int32
		f := tool.New("slow", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			calls.Add(1)
			<-ctx.Done()
			return tool.Result{}, errors.New("connection closed")
		}).WithTimeout(time.Millisecond)
		ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "slow", `{}`))
		wantKind(t, ret, tool.ErrorKindTimeout)
		// Not retried; on a loaded machine the 1 ms deadline may even pass
		// before the first attempt starts.
		if calls.Load() > 1 {
			t.Fatalf("iteration %d: %d calls", i, calls.Load())
		}
	}
}

func TestTimeoutPrecedenceAtExecution(t *testing.T) {
	blocking := func(name string) *tool.Function {
		return tool.New(name, "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		})
	}
	var r tool.Registry
	r.SetTimeout(30 * time.Millisecond)
	if err := r.AddEntry(tool.Entry{Tool: blocking("own").WithTimeout(10 * time.Millisecond), Timeout: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddEntry(tool.Entry{Tool: blocking("set"), Timeout: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(blocking("reg")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"own": 10, "set": 20, "reg": 30} {
		ret := r.Execute(context.Background(), nil, call("1", name, `{}`))
		wantKind(t, ret, tool.ErrorKindTimeout)
		if !jsonEqual(t, ret.Metadata["timeout_ms"], want) {
			t.Errorf("%s: timeout_ms = %v, want %d", name, ret.Metadata["timeout_ms"], want)
		}
	}
}

// A tool that ignores its context still yields a timeout promptly.
func TestTimeoutWithToolIgnoringContext(t *testing.T) {
	release := make(chan struct{})
	finished := make(chan struct{})
	f := tool.New("stuck", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		defer close(finished)
		<-release // ignores ctx entirely
		return tool.Text("late"), nil
	}).WithTimeout(10 * time.Millisecond)
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "stuck", `{}`))
	wantKind(t, ret, tool.ErrorKindTimeout)
	close(release)
	<-finished
}

// A tool may report its own timeout; the registry fills in the effective
// timeout when the tool left it at zero.
func TestToolReportedTimeout(t *testing.T) {
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.Timeout(0)
	}).WithTimeout(time.Hour)
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "t", `{}`))
	wantKind(t, ret, tool.ErrorKindTimeout)
	if !jsonEqual(t, ret.Metadata["timeout_ms"], time.Hour.Milliseconds()) {
		t.Fatalf("timeout_ms = %v", ret.Metadata["timeout_ms"])
	}
}

func TestRunCancellation(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	var tools []tool.Tool
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		if i%2 == 0 { // honours ctx
			tools = append(tools, tool.New(name, "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
				started.Done()
				<-ctx.Done()
				return tool.Result{}, ctx.Err()
			}))
		} else { // ignores ctx
			tools = append(tools, tool.New(name, "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
				started.Done()
				<-release
				return tool.Text("late"), nil
			}))
		}
	}
	r := mustRegistry(t, tools...)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		started.Wait()
		cancel()
	}()
	var calls []tool.Call
	for i := range n {
		calls = append(calls, call(fmt.Sprint(i), fmt.Sprintf("t%d", i), `{}`))
	}
	rets := r.ExecuteBatch(ctx, nil, calls, tool.BatchOptions{})
	close(release)
	for i, ret := range rets {
		wantKind(t, ret, tool.ErrorKindCancelled)
		if ret.ToolCallID != fmt.Sprint(i) {
			t.Fatalf("return %d has id %q", i, ret.ToolCallID)
		}
		if c := content(t, ret); c["retryable"] != false || c["message"] != "agent run cancellation requested" {
			t.Fatalf("cancelled content = %v", c)
		}
	}
}

func TestAlreadyCancelledContext(t *testing.T) {
	var ran bool
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran = true
		return tool.Text("ok"), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantKind(t, mustRegistry(t, f).Execute(ctx, nil, call("1", "t", `{}`)), tool.ErrorKindCancelled)
	if ran {
		t.Fatal("tool ran under a cancelled context")
	}
}

func TestPanickingToolIsExecutionError(t *testing.T) {
	var calls int
	f := tool.New("boom", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		calls++
		panic("kaboom-value")
	}).WithMaxRetries(1)
	for _, ctx := range []context.Context{context.Background(), withCancel(t)} {
		calls = 0
		ret := mustRegistry(t, f).Execute(ctx, nil, call("1", "boom", `{}`))
		wantKind(t, ret, tool.ErrorKindExecution)
		if calls != 2 {
			t.Fatalf("calls = %d, want 2 (panics are retried like execution failures)", calls)
		}
		stack, _ := ret.PrivateMetadata["stack"].(string)
		if !strings.Contains(stack, "goroutine") || !strings.Contains(stack, "execute_test.go") {
			t.Fatalf("stack not in private metadata: %q", stack)
		}
		pub := mustJSON(t, ret.Content) + mustJSON(t, ret.Metadata)
		if strings.Contains(pub, "goroutine") || strings.Contains(pub, "execute_test.go") {
			t.Fatalf("stack leaked into content/metadata: %s", pub)
		}
	}
}

func withCancel(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// Panics in hooks and validators become returns too.
func TestPanickingHooksAndValidators(t *testing.T) {
	t.Run("validator", func(t *testing.T) {
		f := tool.New("t", "", nil, okHandler).WithArgumentValidator(func(*tool.Context, map[string]any) error { panic("v") })
		ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "t", `{}`))
		if ret.ErrorKind() == "" {
			t.Fatal("panicking validator produced success")
		}
	})
	t.Run("before", func(t *testing.T) {
		r := mustRegistry(t, tool.New("t", "", nil, okHandler))
		r.AddHook(tool.Hook{Before: func(context.Context, *tool.Context, map[string]any) error { panic("b") }})
		if ret := r.Execute(context.Background(), nil, call("1", "t", `{}`)); ret.ErrorKind() == "" {
			t.Fatal("panicking before-hook produced success")
		}
	})
	t.Run("after", func(t *testing.T) {
		r := mustRegistry(t, tool.New("t", "", nil, okHandler))
		r.AddHook(tool.Hook{After: func(context.Context, *tool.Context, *tool.Outcome) error { panic("a") }})
		ret := r.Execute(context.Background(), nil, call("1", "t", `{}`))
		if ret.ErrorKind() == "" {
			t.Fatal("panicking after-hook produced success")
		}
		if ret.ToolCallID != "1" || ret.Name != "t" {
			t.Fatalf("id/name = %q/%q", ret.ToolCallID, ret.Name)
		}
	})
}

// A tool returning a typed nil *Error has not failed.
func TestTypedNilErrorIsSuccess(t *testing.T) {
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		var e *tool.Error
		return tool.Text("fine"), e
	})
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("1", "t", `{}`))
	wantSuccess(t, ret)
	v := tool.New("v", "", nil, okHandler).WithArgumentValidator(func(*tool.Context, map[string]any) error {
		var e *tool.Error
		return e
	})
	wantSuccess(t, mustRegistry(t, v).Execute(context.Background(), nil, call("1", "v", `{}`)))
}

func TestNilContextDoesNotPanic(t *testing.T) {
	r := mustRegistry(t, tool.New("t", "", nil, okHandler))
	var nilCtx context.Context
	wantSuccess(t, r.Execute(nilCtx, nil, call("1", "t", `{}`)))
}

type ctxKey struct{}

type database struct{ dsn string }

func TestContextFields(t *testing.T) {
	deps := &tool.Deps{}
	tool.Provide(deps, &database{dsn: "mem"})
	deps.SetNamed("clock", "fake-clock")
	var got tool.Context
	var db *database
	var clock any
	var ctxVal any
	f := tool.New("inspect", "", nil, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		got = *tc
		db, _ = tool.Dependency[*database](tc)
		clock, _ = tc.Deps.Named("clock")
		ctxVal = ctx.Value(ctxKey{})
		return tool.Text("ok"), nil
	}).WithMaxRetries(6)
	base := &tool.Context{
		RunID: "run-1", ConversationID: "conv-1", RunStep: 4,
		ToolCallID: "stale", ToolName: "stale",
		Approval: &tool.Approval{Status: "approved", Metadata: map[string]any{"by": "ann"}},
		Metadata: map[string]any{"tenant": "acme"},
		Deps:     deps,
	}
	before := *base
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	wantSuccess(t, mustRegistry(t, f).Execute(ctx, base, call("call-7", "inspect", `{}`)))
	if got.RunID != "run-1" || got.ConversationID != "conv-1" || got.RunStep != 4 {
		t.Fatalf("run fields = %+v", got)
	}
	if got.ToolCallID != "call-7" || got.ToolName != "inspect" {
		t.Fatalf("call fields = %q/%q", got.ToolCallID, got.ToolName)
	}
	if got.Retry != 0 || got.MaxRetries != 6 {
		t.Fatalf("retry = %d/%d", got.Retry, got.MaxRetries)
	}
	if got.Approval == nil || got.Approval.Status != "approved" || got.Approval.Metadata["by"] != "ann" {
		t.Fatalf("approval = %+v", got.Approval)
	}
	if got.Metadata["tenant"] != "acme" {
		t.Fatalf("metadata = %v", got.Metadata)
	}
	if db == nil || db.dsn != "mem" || clock != "fake-clock" {
		t.Fatalf("deps: db=%v clock=%v", db, clock)
	}
	if ctxVal != "v" {
		t.Fatal("context values do not reach the tool")
	}
	if base.ToolCallID != before.ToolCallID || base.ToolName != before.ToolName || base.MaxRetries != before.MaxRetries {
		t.Fatal("Execute modified the base context")
	}
}
