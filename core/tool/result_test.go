package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestSuccessReturnSurfaces(t *testing.T) {
	res := tool.Result{
		Content:         map[string]any{"rows": 3},
		Metadata:        map[string]any{"source": "db"},
		AppValue:        []int{1, 2, 3},
		UserContent:     "3 rows",
		PrivateMetadata: map[string]any{"query_plan": "SECRET-PLAN"},
	}
	ret := tool.SuccessReturn(call("c9", "q", `{}`), res)
	if ret.ToolCallID != "c9" || ret.Name != "q" {
		t.Fatalf("id/name = %q/%q", ret.ToolCallID, ret.Name)
	}
	if !jsonEqual(t, ret.Content, map[string]any{"rows": 3}) {
		t.Fatalf("content = %v", ret.Content)
	}
	if ret.IsError {
		t.Fatal("is_error on a plain success")
	}
	if ret.ErrorKind() != "" {
		t.Fatalf("ErrorKind = %q on success", ret.ErrorKind())
	}
	if !jsonEqual(t, ret.Metadata, map[string]any{"source": "db"}) {
		t.Fatalf("metadata = %v", ret.Metadata)
	}
	if !jsonEqual(t, ret.AppValue, []int{1, 2, 3}) || ret.UserContent != "3 rows" {
		t.Fatalf("app/user = %v / %v", ret.AppValue, ret.UserContent)
	}
	if ret.PrivateMetadata["query_plan"] != "SECRET-PLAN" {
		t.Fatalf("private metadata = %v", ret.PrivateMetadata)
	}
	if s := mustJSON(t, ret.Content) + mustJSON(t, ret.Metadata); strings.Contains(s, "SECRET-PLAN") {
		t.Fatalf("private metadata leaked: %s", s)
	}
}

func TestSuccessReturnModelContent(t *testing.T) {
	ret := tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "raw bytes: 1MB", ModelContent: "summary"})
	if ret.Content != "summary" {
		t.Fatalf("content = %v, want model content", ret.Content)
	}
	ret = tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "raw"})
	if ret.Content != "raw" {
		t.Fatalf("content = %v, want raw content", ret.Content)
	}
	if tool.Text("hi").Content != "hi" || !jsonEqual(t, tool.JSON(map[string]int{"a": 1}).Content, map[string]int{"a": 1}) {
		t.Fatal("Text/JSON helpers")
	}
}

func TestSuccessReturnIsErrorMarker(t *testing.T) {
	ret := tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "x", Metadata: map[string]any{tool.MetaResultIsError: true}})
	if !ret.IsError {
		t.Fatal("metadata marker did not set is_error")
	}
	if ret.ErrorKind() != "" {
		t.Fatal("is_error result must not look like a typed error")
	}
	ret = tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "x", Metadata: map[string]any{tool.MetaResultIsError: "yes"}})
	if ret.IsError {
		t.Fatal("a non-boolean marker set is_error")
	}
	ret = tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "x", IsError: true})
	if !ret.IsError {
		t.Fatal("Result.IsError ignored")
	}
}

// The return as it is serialised for history and the Python package.
func TestReturnJSONShape(t *testing.T) {
	ret := tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "x"})
	got := mustJSON(t, ret)
	want := `{"tool_call_id":"c","name":"t","content":"x","is_error":false}`
	if got != want {
		t.Fatalf("json = %s, want %s", got, want)
	}
	var back tool.Return
	if err := json.Unmarshal([]byte(got), &back); err != nil || back.Content != "x" {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

// Results pass through the registry unchanged apart from the model view.
func TestExecuteResultSurfaces(t *testing.T) {
	f := tool.New("r", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{
			Content: "full", ModelContent: "short", AppValue: 42, UserContent: "for people",
			Metadata: map[string]any{"m": 1}, PrivateMetadata: map[string]any{"p": "hidden"},
		}, nil
	})
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("c", "r", ``))
	wantSuccess(t, ret)
	if ret.Content != "short" || ret.AppValue != 42 || ret.UserContent != "for people" || ret.PrivateMetadata["p"] != "hidden" {
		t.Fatalf("return = %+v", ret)
	}
	if strings.Contains(mustJSON(t, ret.Content)+mustJSON(t, ret.Metadata), "hidden") {
		t.Fatal("private metadata leaked")
	}
}
