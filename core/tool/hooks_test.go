package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// recorder builds hooks that log their phase and name.
type recorder struct{ log []string }

func (r *recorder) hook(name string) tool.Hook {
	return tool.Hook{
		Name: name,
		Before: func(context.Context, *tool.Context, map[string]any) error {
			r.log = append(r.log, "before:"+name)
			return nil
		},
		After: func(context.Context, *tool.Context, *tool.Outcome) error {
			r.log = append(r.log, "after:"+name)
			return nil
		},
	}
}

func TestHookOrder(t *testing.T) {
	var rec recorder
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		rec.log = append(rec.log, "tool")
		return tool.Text("ok"), nil
	}).WithHook(rec.hook("tool1")).WithHook(rec.hook("tool2"))
	r := mustRegistry(t, f)
	r.AddHook(rec.hook("global1"))
	r.AddHook(rec.hook("global2"))
	r.AddHook(tool.Hook{Name: "empty"}) // hooks without functions are skipped
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "t", `{}`)))
	want := []string{
		"before:global1", "before:global2", "before:tool1", "before:tool2",
		"tool",
		"after:tool1", "after:tool2", "after:global1", "after:global2",
	}
	if !slices.Equal(rec.log, want) {
		t.Fatalf("order =\n%v\nwant\n%v", rec.log, want)
	}
}

func TestBeforeHookChangesContextAndArgs(t *testing.T) {
	var seenArgs json.RawMessage
	var seenTC tool.Context
	f := tool.New("t", "", map[string]any{
		"properties": map[string]any{"q": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer", "maximum": 10}},
	}, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		seenArgs = args
		seenTC = *tc
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	r.AddHook(tool.Hook{Before: func(_ context.Context, tc *tool.Context, args map[string]any) error {
		tc.Metadata = map[string]any{"traced": true}
		tc.RunStep = 99
		args["q"] = "rewritten"
		args["limit"] = 5 // hooks may fix arguments before schema validation
		return nil
	}})
	base := &tool.Context{Metadata: map[string]any{"orig": 1}}
	wantSuccess(t, r.Execute(context.Background(), base, call("1", "t", `{"q":"orig","limit":500}`)))
	if !jsonEqual(t, seenArgs, map[string]any{"q": "rewritten", "limit": 5}) {
		t.Fatalf("tool saw %s", seenArgs)
	}
	if seenTC.RunStep != 99 || seenTC.Metadata["traced"] != true {
		t.Fatalf("tool saw context %+v", seenTC)
	}
	if base.RunStep != 0 || base.Metadata["orig"] != 1 {
		t.Fatal("hook changes leaked into the base context")
	}

	// Hook-changed arguments are still validated.
	r2 := mustRegistry(t, tool.New("t", "", map[string]any{"properties": map[string]any{"limit": map[string]any{"type": "integer", "maximum": 10}}}, okHandler))
	r2.AddHook(tool.Hook{Before: func(_ context.Context, _ *tool.Context, args map[string]any) error {
		args["limit"] = 50
		return nil
	}})
	wantKind(t, r2.Execute(context.Background(), nil, call("1", "t", `{"limit":1}`)), tool.ErrorKindInvalidArguments)
}

func TestBeforeHookErrorEndsCall(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind tool.ErrorKind
	}{
		{tool.UserError("blocked by policy"), tool.ErrorKindUserError},
		{errors.New("hook crashed"), tool.ErrorKindExecution},
		{tool.ApprovalRequired("needs review", nil), tool.ErrorKindApprovalRequired},
	} {
		var rec recorder
		var ran int
		f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			ran++
			return tool.Text("ok"), nil
		}).WithHook(rec.hook("tool"))
		r := mustRegistry(t, f)
		r.AddHook(tool.Hook{Name: "deny", Before: func(context.Context, *tool.Context, map[string]any) error { return tc.err }})
		ret := r.Execute(context.Background(), nil, call("1", "t", `{}`))
		wantKind(t, ret, tc.kind)
		if ran != 0 {
			t.Fatalf("%s: tool ran after a before-hook error", tc.kind)
		}
		if len(rec.log) != 0 {
			t.Fatalf("%s: later hooks ran: %v", tc.kind, rec.log)
		}
		if _, has := ret.Metadata["tool_retry"]; has {
			t.Fatalf("%s: hook error was retried", tc.kind)
		}
	}
}

func TestAfterHookChangesOutcome(t *testing.T) {
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("raw"), nil
	})
	r := mustRegistry(t, f)
	r.AddHook(tool.Hook{After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
		out.Result.Content = out.Result.Content.(string) + "+audited"
		out.Result.Metadata = map[string]any{"audited": true}
		return nil
	}})
	ret := r.Execute(context.Background(), nil, call("1", "t", `{}`))
	wantSuccess(t, ret)
	if ret.Content != "raw+audited" || ret.Metadata["audited"] != true {
		t.Fatalf("return = %+v", ret)
	}

	// An after-hook may turn an error into a success ...
	failing := tool.New("f", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.Feedback("not found")
	})
	r = mustRegistry(t, failing)
	r.AddHook(tool.Hook{After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
		if tool.KindOf(out.Err) == tool.ErrorKindFeedback {
			out.Err = nil
			out.Result = tool.Text("recovered")
		}
		return nil
	}})
	ret = r.Execute(context.Background(), nil, call("1", "f", `{}`))
	wantSuccess(t, ret)
	if ret.Content != "recovered" {
		t.Fatalf("content = %v", ret.Content)
	}

	// ... and an error from an after-hook replaces the outcome.
	var sawReplaced bool
	r2 := mustRegistry(t, tool.New("t", "", nil, okHandler).WithHook(tool.Hook{After: func(context.Context, *tool.Context, *tool.Outcome) error {
		return tool.ModelRetry("result too large, narrow the query")
	}}))
	r2.AddHook(tool.Hook{After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
		sawReplaced = tool.KindOf(out.Err) == tool.ErrorKindModelRetry && out.Result.Content == nil
		return nil
	}})
	ret = r2.Execute(context.Background(), nil, call("1", "t", `{}`))
	wantKind(t, ret, tool.ErrorKindModelRetry)
	if !sawReplaced {
		t.Fatal("the global hook did not see the replaced outcome")
	}
}

func TestAfterHooksCannotReplaceControlFlow(t *testing.T) {
	for _, cf := range []*tool.Error{
		tool.ApprovalRequired("review", map[string]any{"risk": "high"}),
		tool.CallDeferred("worker", map[string]any{"queue": "q"}),
	} {
		t.Run(string(cf.Kind), func(t *testing.T) {
			f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
				return tool.Result{}, cf
			})
			var observed []tool.ErrorKind
			r := mustRegistry(t, f)
			r.AddHook(tool.Hook{After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
				observed = append(observed, tool.KindOf(out.Err))
				out.Err = nil
				out.Result = tool.Text("hijacked")
				return nil
			}})
			r.AddHook(tool.Hook{After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
				observed = append(observed, tool.KindOf(out.Err))
				return errors.New("hook failure must be ignored")
			}})
			ret := r.Execute(context.Background(), nil, call("1", "t", `{"x":1}`))
			wantKind(t, ret, cf.Kind)
			if ret.WireMetadata()["control_flow"] != string(cf.Kind) {
				t.Fatalf("control_flow = %v", ret.WireMetadata()["control_flow"])
			}
			if len(observed) != 2 || observed[0] != cf.Kind {
				t.Fatalf("hooks observed %v", observed)
			}
		})
	}
}

// After-hooks run on every attempt; before-hooks once.
func TestHooksAcrossRetries(t *testing.T) {
	var rec recorder
	var n int
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		n++
		if n < 3 {
			return tool.Result{}, errors.New("flaky")
		}
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	r.AddHook(rec.hook("g"))
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "t", `{}`)))
	want := []string{"before:g", "after:g", "after:g", "after:g"}
	if !slices.Equal(rec.log, want) {
		t.Fatalf("log = %v, want %v", rec.log, want)
	}
}

// An after-hook can rescue a failed attempt, which stops the retries.
func TestAfterHookSeesEachAttempt(t *testing.T) {
	var attempts []int
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("always")
	})
	r := mustRegistry(t, f)
	r.AddHook(tool.Hook{After: func(_ context.Context, tc *tool.Context, out *tool.Outcome) error {
		attempts = append(attempts, tc.Retry)
		return nil
	}})
	wantKind(t, r.Execute(context.Background(), nil, call("1", "t", `{}`)), tool.ErrorKindExecution)
	if !slices.Equal(attempts, []int{0, 1, 2, 3}) {
		t.Fatalf("after-hook attempts = %v", attempts)
	}
}

// Hooks and validators may store ordinary Go values; the schema validates
// them as the JSON the tool receives.
func TestHookValuesAreValidatedAsJSON(t *testing.T) {
	var seen json.RawMessage
	f := tool.New("t", "", map[string]any{
		"properties": map[string]any{
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"n":     map[string]any{"type": "integer", "maximum": 10},
			"where": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
		},
	}, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		seen = args
		return tool.Text("ok"), nil
	})
	type place struct {
		City string `json:"city"`
	}
	r := mustRegistry(t, f)
	r.AddHook(tool.Hook{Before: func(_ context.Context, _ *tool.Context, args map[string]any) error {
		args["tags"] = []string{"a", "b"}
		args["n"] = 5
		args["where"] = place{City: "Oslo"}
		return nil
	}})
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "t", `{}`)))
	if !jsonEqual(t, seen, map[string]any{"tags": []string{"a", "b"}, "n": 5, "where": map[string]any{"city": "Oslo"}}) {
		t.Fatalf("tool saw %s", seen)
	}
	// A value that cannot be encoded is the application's error.
	r2 := mustRegistry(t, tool.New("t", "", nil, okHandler))
	r2.AddHook(tool.Hook{Before: func(_ context.Context, _ *tool.Context, args map[string]any) error {
		args["ch"] = make(chan int)
		return nil
	}})
	wantKind(t, r2.Execute(context.Background(), nil, call("1", "t", `{}`)), tool.ErrorKindUserError)
}
