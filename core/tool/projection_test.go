package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// store is a host's projected values, by reference.
var store = map[string]string{
	`"doc-1"`: `{"title":"Q3","pages":12}`,
	`"n"`:     `42`,
}

func resolver(calls *atomic.Int32) tool.ProjectionResolver {
	return tool.ProjectionResolverFunc(func(_ context.Context, tc *tool.Context, ref json.RawMessage) (json.RawMessage, error) {
		calls.Add(1)
		if tc == nil || tc.ToolName == "" {
			return nil, errors.New("no call context")
		}
		v, ok := store[string(ref)]
		if !ok {
			return nil, errors.New("unknown reference")
		}
		return json.RawMessage(v), nil
	})
}

// The default policy materialises every projected value, nested ones too,
// before schema validation: the tool reads plain JSON.
func TestProjectionMaterialisesByDefault(t *testing.T) {
	f := tool.New("summarise", "", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"doc":   map[string]any{"type": "object", "required": []any{"title"}},
			"limit": map[string]any{"type": "integer"},
			"more":  map[string]any{"type": "array"},
		},
	}, echoHandler)
	r := mustRegistry(t, f)
	var calls atomic.Int32
	r.SetProjectionResolver(resolver(&calls))
	ret := r.Execute(context.Background(), nil, call("1", "summarise",
		`{"doc":{"__projection_ref__":"doc-1"},"limit":{"__projection_ref__":"n"},"more":[{"__projection_ref__":"n"},{"keep":1}]}`))
	if ret.IsError {
		t.Fatalf("error %v", ret.Content)
	}
	got, _ := json.Marshal(ret.Content)
	if string(got) != `{"doc":{"pages":12,"title":"Q3"},"limit":42,"more":[42,{"keep":1}]}` || calls.Load() != 3 {
		t.Fatalf("tool read %s (%d resolutions)", got, calls.Load())
	}
}

// PreserveProjectedRefsInField keeps wrappers in that field only.
func TestProjectionPreservesOneField(t *testing.T) {
	f := tool.New("spawn", "", map[string]any{"type": "object"}, echoHandler).
		WithArgumentProjection(tool.PreserveProjectedRefsInField("seed"))
	r := mustRegistry(t, f)
	var calls atomic.Int32
	r.SetProjectionResolver(resolver(&calls))
	ret := r.Execute(context.Background(), nil, call("1", "spawn",
		`{"seed":[{"__projection_ref__":"doc-1"},"plain"],"limit":{"__projection_ref__":"n"}}`))
	got, _ := json.Marshal(ret.Content)
	if string(got) != `{"limit":42,"seed":[{"__projection_ref__":"doc-1"},"plain"]}` || calls.Load() != 1 {
		t.Fatalf("tool read %s (%d resolutions)", got, calls.Load())
	}
}

// Schema validation sees materialised values; an unknown reference is
// invalid_arguments the model can correct, and the tool never runs.
func TestProjectionBeforeValidation(t *testing.T) {
	var ran atomic.Int32
	f := tool.New("count", "", map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}},
	}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	var calls atomic.Int32
	r.SetProjectionResolver(resolver(&calls))
	if ret := r.Execute(context.Background(), nil, call("1", "count", `{"n":{"__projection_ref__":"n"}}`)); ret.IsError {
		t.Fatalf("a projected integer failed validation: %v", ret.Content)
	}
	ret := r.Execute(context.Background(), nil, call("2", "count", `{"n":{"__projection_ref__":"missing"}}`))
	if ret.ErrorKind() != tool.ErrorKindInvalidArguments || !strings.Contains(ret.Metadata[tool.MetaMessage].(string), "unknown reference") {
		t.Fatalf("return %+v", ret)
	}
	if ran.Load() != 1 {
		t.Fatalf("tool ran %d times", ran.Load())
	}
}

// Without a resolver arguments are the model's, marker or not; an object
// with the marker and other keys is not a projected value.
func TestProjectionOffAndLookalikes(t *testing.T) {
	f := tool.New("echo", "", map[string]any{"type": "object"}, echoHandler)
	r := mustRegistry(t, f)
	args := `{"a":{"__projection_ref__":"n"}}`
	ret := r.Execute(context.Background(), nil, call("1", "echo", args))
	if got, _ := json.Marshal(ret.Content); string(got) != args {
		t.Fatalf("without a resolver read %s", got)
	}
	var calls atomic.Int32
	r.SetProjectionResolver(resolver(&calls))
	args = `{"a":{"__projection_ref__":"n","other":1}}`
	ret = r.Execute(context.Background(), nil, call("2", "echo", args))
	if got, _ := json.Marshal(ret.Content); string(got) != args || calls.Load() != 0 {
		t.Fatalf("a lookalike read %s (%d resolutions)", got, calls.Load())
	}
}
