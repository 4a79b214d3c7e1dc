package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// proxyTool dispatches {"name", "arguments"} through the run's registry.
func proxyTool() *tool.Function {
	return tool.New("proxy", "", map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "arguments": map[string]any{}},
	}, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		var in struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return tool.Result{}, err
		}
		ret := tc.Dispatch(ctx, tool.Call{ID: tc.ToolCallID, Name: in.Name, Arguments: in.Arguments})
		if k := ret.ErrorKind(); k != "" {
			return tool.Result{}, &tool.Error{Kind: k, Message: tool.ErrorMessage(ret)}
		}
		return tool.Result{Content: ret.Content}, nil
	})
}

func hiddenAdd() tool.Tool {
	return tool.Unlisted(tool.New("add", "", map[string]any{
		"type":       "object",
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		"required":   []any{"a", "b"},
	}, echoHandler))
}

func TestUnlistedIsNeverListedNorCallableByName(t *testing.T) {
	r := mustRegistry(t, proxyTool(), hiddenAdd())
	if got := r.Names(); !slices.Equal(got, []string{"proxy"}) {
		t.Fatalf("Names = %v", got)
	}
	if got := r.DefinitionsFor(nil); len(got.Definitions) != 1 || len(got.Unavailable) != 0 {
		t.Fatalf("DefinitionsFor = %+v", got)
	}
	if _, ok := r.Tool("add"); ok {
		t.Fatal("Tool(add) found an unlisted tool")
	}
	if got := r.UnlistedNames(); !slices.Equal(got, []string{"add"}) {
		t.Fatalf("UnlistedNames = %v", got)
	}
	wantKind(t, r.Execute(context.Background(), nil, call("1", "add", `{"a":1,"b":2}`)), tool.ErrorKindNotFound)
	if err := r.Add(tool.New("add", "", nil, okHandler)); !errors.Is(err, tool.ErrDuplicateTool) {
		t.Fatalf("listed duplicate of an unlisted name: %v", err)
	}
}

func TestDispatchGoesThroughTheRegistry(t *testing.T) {
	r := mustRegistry(t, proxyTool(), hiddenAdd())
	for _, reg := range []*tool.Registry{r, r.Clone(), r.Select([]string{"proxy"})} {
		ret := reg.Execute(context.Background(), nil, call("1", "proxy", `{"name":"add","arguments":{"a":1,"b":2}}`))
		wantSuccess(t, ret)
		if !jsonEqual(t, ret.Content, map[string]any{"a": 1, "b": 2}) {
			t.Fatalf("content = %v", ret.Content)
		}
		// The schema of the dispatched tool applies.
		ret = reg.Execute(context.Background(), nil, call("2", "proxy", `{"name":"add","arguments":{"a":"x"}}`))
		wantKind(t, ret, tool.ErrorKindInvalidArguments)
		ret = reg.Execute(context.Background(), nil, call("3", "proxy", `{"name":"nope","arguments":{}}`))
		wantKind(t, ret, tool.ErrorKindNotFound)
	}
}

func TestDispatchAppliesTimeoutHooksAndApproval(t *testing.T) {
	slow := tool.New("slow", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}).WithTimeout(10 * time.Millisecond).WithMaxRetries(0)
	gated := tool.New("gated", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil || tc.Approval.Status != "approved" {
			return tool.Result{}, tool.ApprovalRequired("needs a person", nil)
		}
		return tool.Text("done"), nil
	})
	var seen []string
	r := mustRegistry(t, proxyTool(), tool.Unlisted(slow), tool.Unlisted(gated))
	r.AddHook(tool.Hook{Name: "log", Before: func(_ context.Context, tc *tool.Context, _ map[string]any) error {
		seen = append(seen, tc.ToolName)
		return nil
	}})
	wantKind(t, r.Execute(context.Background(), nil, call("1", "proxy", `{"name":"slow"}`)), tool.ErrorKindTimeout)
	wantKind(t, r.Execute(context.Background(), nil, call("2", "proxy", `{"name":"gated"}`)), tool.ErrorKindApprovalRequired)
	approved := &tool.Context{Approval: &tool.Approval{Status: "approved"}}
	wantSuccess(t, r.Execute(context.Background(), approved, call("2", "proxy", `{"name":"gated"}`)))
	if want := []string{"proxy", "slow", "proxy", "gated", "proxy", "gated"}; !slices.Equal(seen, want) {
		t.Fatalf("hooks saw %v, want %v", seen, want)
	}
}

func TestDispatchOutsideARegistry(t *testing.T) {
	wantKind(t, (&tool.Context{}).Dispatch(context.Background(), call("1", "x", `{}`)), tool.ErrorKindUserError)
}
