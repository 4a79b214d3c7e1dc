package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
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

// representativeReturns builds the returns of wireGolden the way the
// runtime does; the agent's retry count is set as the agent sets it.
func representativeReturns(t *testing.T) map[string]tool.Return {
	t.Helper()
	retry := tool.ErrorReturn(call("c2", "flaky", `{"q":1}`), tool.ModelRetry("try again"))
	retry.Runtime.Retry, retry.Runtime.MaxRetries = 1, 3
	boom := tool.New("boom", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("kaput")
	}).WithMaxRetries(1)
	return map[string]tool.Return{
		"success": tool.SuccessReturn(call("c1", "q", `{}`), tool.Result{Content: map[string]any{"rows": 3},
			Metadata: map[string]any{"source": "db"}, AppValue: []int{1}, UserContent: "3 rows", PrivateMetadata: map[string]any{"plan": "x"}}),
		"retryable": retry,
		"approval": tool.ErrorReturn(call("c3", "deploy", `{"env":"prod","n":1.50}`),
			tool.ApprovalRequired("deploy production", map[string]any{"risk": "high"})),
		"approval_badargs": tool.ErrorReturn(call("c3", "deploy", `{"env":<b>`), tool.ApprovalRequired("", nil)),
		"deferral":         tool.ErrorReturn(call("c4", "render", ``), tool.CallDeferred("queued", map[string]any{"queue": "gpu"})),
		"timeout":          tool.ErrorReturn(call("c5", "slow", `{}`), tool.Timeout(50)),
		"feedback":         tool.ErrorReturn(call("c6", "f", `{}`), tool.Feedback("missing")),
		"exhausted":        mustRegistry(t, boom).Execute(context.Background(), nil, call("c7", "boom", `{}`)),
		"not_found":        mustRegistry(t).Execute(context.Background(), nil, call("c8", "nope", `{}`)),
	}
}

// The wire form is byte for byte what it was when the runtime kept its
// decisions as metadata entries.
func TestReturnWireGolden(t *testing.T) {
	rets := representativeReturns(t)
	for name, want := range wireGolden {
		ret, ok := rets[name]
		if !ok {
			t.Fatalf("no return for golden %q", name)
		}
		if got := mustJSON(t, ret); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		// A pointer encodes the same, as in events.
		if got := mustJSON(t, &ret); got != want {
			t.Errorf("%s (pointer):\n got %s\nwant %s", name, got, want)
		}
	}
	for name, want := range partGolden {
		if got := mustJSON(t, model.ToolReturn(rets[name])); got != want {
			t.Errorf("%s part:\n got %s\nwant %s", name, got, want)
		}
	}
}

// Decoding the wire form restores every typed field, and encoding the
// result again gives the same bytes.
func TestReturnWireRoundTrip(t *testing.T) {
	for name, ret := range representativeReturns(t) {
		first := mustJSON(t, ret)
		var back tool.Return
		if err := json.Unmarshal([]byte(first), &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if again := mustJSON(t, back); again != first {
			t.Errorf("%s: re-encoded\n%s\nwant\n%s", name, again, first)
		}
		if !runtimeEqual(t, back.Runtime, ret.Runtime) {
			t.Errorf("%s: runtime %+v, want %+v", name, back.Runtime, ret.Runtime)
		}
		if (ret.Runtime == nil) != (name == "success") {
			t.Errorf("%s: runtime %+v", name, ret.Runtime)
		}
		// Reserved keys live in Runtime only, as in a freshly built return.
		if !jsonEqual(t, back.Metadata, ret.Metadata) {
			t.Errorf("%s: metadata %v, want %v", name, back.Metadata, ret.Metadata)
		}
	}
}

// Every typed field survives the round trip on its own, so no two fields
// share a key by mistake.
func TestReturnRuntimeFieldsRoundTrip(t *testing.T) {
	cases := map[string]tool.Runtime{
		"kind only":       {ErrorKind: tool.ErrorKindUserError},
		"retryable":       {ErrorKind: tool.ErrorKindExecution, Flags: tool.Flags{Retryable: true}},
		"corrected input": {ErrorKind: tool.ErrorKindExecution, Flags: tool.Flags{CorrectedInput: true}},
		"model retryable": {ErrorKind: tool.ErrorKindExecution, Flags: tool.Flags{ModelRetryable: true}},
		"unexpected":      {ErrorKind: tool.ErrorKindExecution, Flags: tool.Flags{Unexpected: true}},
		"is error":        {ErrorKind: tool.ErrorKindExecution, Flags: tool.Flags{IsError: true}},
		"retry":           {ErrorKind: tool.ErrorKindModelRetry, Retry: 2, MaxRetries: 5},
		"approval": {ErrorKind: tool.ErrorKindApprovalRequired, Request: map[string]any{"risk": "high", "n": 1.5},
			Arguments: json.RawMessage(`{"env":"prod","n":1.50}`)},
		"deferral": {ErrorKind: tool.ErrorKindCallDeferred, Request: map[string]any{"queue": "gpu"},
			Arguments: json.RawMessage(`"not json"`)},
		"unknown kind": {ErrorKind: "from_a_newer_runtime", Flags: tool.Flags{Retryable: true}},
	}
	for name, rt := range cases {
		ret := tool.Return{ToolCallID: "c", Name: "t", Content: "x", IsError: rt.Flags.IsError,
			Metadata: map[string]any{"own": "kept"}, Runtime: &rt}
		var back tool.Return
		if err := json.Unmarshal([]byte(mustJSON(t, ret)), &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !runtimeEqual(t, back.Runtime, &rt) {
			t.Errorf("%s: runtime %+v, want %+v", name, back.Runtime, rt)
		}
		if !jsonEqual(t, back.Metadata, map[string]any{"own": "kept"}) {
			t.Errorf("%s: metadata %v", name, back.Metadata)
		}
	}
}

// A tool's own metadata may hold keys that look reserved: on a successful
// return they are its data, in memory and on the wire, never the runtime's.
func TestForgedReservedKeysAreNotRuntime(t *testing.T) {
	forged := map[string]any{"error_kind": "model_retry", "runtime_retryable": true, "retry": 7, "max_retries": 9,
		"approval": map[string]any{"x": 1}}
	ret := tool.SuccessReturn(call("c", "t", `{}`), tool.Result{Content: "x", Metadata: forged})
	if ret.ErrorKind() != "" || ret.Runtime != nil {
		t.Fatalf("forged metadata became runtime: %+v", ret.Runtime)
	}
	if !jsonEqual(t, ret.WireMetadata(), forged) {
		t.Fatalf("wire metadata %v, want the tool's own", ret.WireMetadata())
	}
	// On an error return the typed value wins over a key of the same name.
	ret = tool.ErrorReturn(call("c", "t", `{}`), tool.UserError("no"))
	ret.Metadata["runtime_retryable"] = true
	if ret.WireMetadata()["runtime_retryable"] != false {
		t.Fatalf("metadata overrode the typed flag: %v", ret.WireMetadata())
	}
}

// The wire metadata of a plain success is the tool's map itself: the
// common path allocates nothing.
func TestWireMetadataSharesPlainMetadata(t *testing.T) {
	md := map[string]any{"a": 1}
	ret := tool.Return{Metadata: md}
	if got := ret.WireMetadata(); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(md).UnsafePointer() {
		t.Fatal("wire metadata of a plain return is a copy")
	}
	ret.Runtime = &tool.Runtime{}
	if got := ret.WireMetadata(); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(md).UnsafePointer() {
		t.Fatal("wire metadata of an empty runtime is a copy")
	}
	ret.Runtime.ErrorKind = tool.ErrorKindUserError
	if got := ret.WireMetadata(); len(md) != 1 || got["error_kind"] != "user_error" {
		t.Fatalf("runtime keys written into the tool's map: %v / %v", md, got)
	}
}

// runtimeEqual compares runtimes, Request as JSON (numbers decode as
// float64) and Arguments byte for byte.
func runtimeEqual(t *testing.T, x, y *tool.Runtime) bool {
	t.Helper()
	if x == nil || y == nil {
		return x == y
	}
	a, b := *x, *y
	if !jsonEqual(t, a.Request, b.Request) || !bytes.Equal(a.Arguments, b.Arguments) {
		return false
	}
	a.Request, b.Request, a.Arguments, b.Arguments = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

// wireGolden is the JSON of representative returns as written before
// Return had typed runtime fields, captured from that code: hosts, exported
// state and providers read exactly these bytes.
var wireGolden = map[string]string{
	"success":          `{"tool_call_id":"c1","name":"q","content":{"rows":3},"is_error":false,"metadata":{"source":"db"},"app_value":[1],"user_content":"3 rows","private_metadata":{"plan":"x"}}`,
	"retryable":        `{"tool_call_id":"c2","name":"flaky","content":{"error":"tool flaky requested model retry: try again","how_to_fix":"Adjust the tool call as requested and try again: try again","kind":"model_retry","message":"try again","model_retryable":true,"retry_requires_corrected_input":true,"retryable":true,"runtime_retryable":true,"success":false,"tool":"flaky","unexpected":false},"is_error":true,"metadata":{"error_kind":"model_retry","how_to_fix":"Adjust the tool call as requested and try again: try again","max_retries":3,"message":"try again","model_retryable":true,"retry":1,"retry_requires_corrected_input":true,"retryable":true,"runtime_retryable":true,"tool":"flaky","unexpected":false}}`,
	"approval":         `{"tool_call_id":"c3","name":"deploy","content":{"error":"tool deploy call requires approval before execution","how_to_fix":"Wait for a person to approve or deny this call.","kind":"approval_required","message":"deploy production","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"success":false,"tool":"deploy","unexpected":false},"is_error":true,"metadata":{"approval":{"reason":"deploy production","risk":"high"},"control_flow":"approval_required","error_kind":"approval_required","how_to_fix":"Wait for a person to approve or deny this call.","message":"deploy production","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"starweaver.approval_tool_arguments":{"env":"prod","n":1.50},"tool":"deploy","unexpected":false}}`,
	"approval_badargs": `{"tool_call_id":"c3","name":"deploy","content":{"error":"tool deploy call requires approval before execution","how_to_fix":"Wait for a person to approve or deny this call.","kind":"approval_required","message":"approval required","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"success":false,"tool":"deploy","unexpected":false},"is_error":true,"metadata":{"approval":{},"control_flow":"approval_required","error_kind":"approval_required","how_to_fix":"Wait for a person to approve or deny this call.","message":"approval required","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"starweaver.approval_tool_arguments":"{\"env\":\u003cb\u003e","tool":"deploy","unexpected":false}}`,
	"deferral":         `{"tool_call_id":"c4","name":"render","content":{"error":"tool render call was deferred to an external worker or later run","how_to_fix":"Wait for the deferred result to be supplied.","kind":"call_deferred","message":"queued","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"success":false,"tool":"render","unexpected":false},"is_error":true,"metadata":{"control_flow":"call_deferred","deferred":{"queue":"gpu","reason":"queued"},"error_kind":"call_deferred","how_to_fix":"Wait for the deferred result to be supplied.","message":"queued","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"starweaver.deferred_tool_arguments":{},"tool":"render","unexpected":false}}`,
	"timeout":          `{"tool_call_id":"c5","name":"slow","content":{"error":"tool slow execution exceeded the 50ms timeout","how_to_fix":"The tool took too long; retry with a smaller request or continue without it.","kind":"timeout","message":"exceeded 50ms","model_retryable":false,"retry_requires_corrected_input":true,"retryable":true,"runtime_retryable":false,"success":false,"timeout_ms":50,"tool":"slow","unexpected":false},"is_error":true,"metadata":{"error_kind":"timeout","how_to_fix":"The tool took too long; retry with a smaller request or continue without it.","message":"exceeded 50ms","model_retryable":false,"retry_requires_corrected_input":true,"retryable":true,"runtime_retryable":false,"timeout_ms":50,"tool":"slow","unexpected":false}}`,
	"feedback":         `{"tool_call_id":"c6","name":"f","content":{"error":"tool f feedback: missing","how_to_fix":"Read the feedback and decide how to continue: missing","kind":"feedback","message":"missing","model_retryable":false,"retry_requires_corrected_input":false,"retryable":true,"runtime_retryable":false,"success":false,"tool":"f","unexpected":false},"is_error":false,"metadata":{"error_kind":"feedback","how_to_fix":"Read the feedback and decide how to continue: missing","message":"missing","model_retryable":false,"retry_requires_corrected_input":false,"retryable":true,"runtime_retryable":false,"tool":"f","unexpected":false}}`,
	"exhausted":        `{"tool_call_id":"c7","name":"boom","content":{"error":"tool boom execution failed: kaput","how_to_fix":"The tool failed unexpectedly; retry later or continue without it.","kind":"execution","max_retries":1,"message":"kaput","model_retryable":false,"retry_requires_corrected_input":false,"retryable":true,"runtime_retryable":false,"success":false,"tool":"boom","tool_retry":1,"unexpected":true},"is_error":true,"metadata":{"error_kind":"execution","how_to_fix":"The tool failed unexpectedly; retry later or continue without it.","max_retries":1,"message":"kaput","model_retryable":false,"retry_requires_corrected_input":false,"retryable":true,"runtime_retryable":false,"tool":"boom","tool_retry":1,"unexpected":true}}`,
	"not_found":        `{"tool_call_id":"c8","name":"nope","content":{"error":"tool \"nope\" is not registered for this run","how_to_fix":"Call one of the tools listed in the request; this name is not available.","kind":"not_found","message":"tool \"nope\" is not registered for this run","model_retryable":false,"retry_requires_corrected_input":true,"retryable":true,"runtime_retryable":false,"success":false,"tool":"nope","unexpected":false},"is_error":false,"metadata":{"error_kind":"not_found","how_to_fix":"Call one of the tools listed in the request; this name is not available.","message":"tool \"nope\" is not registered for this run","model_retryable":false,"retry_requires_corrected_input":true,"retryable":true,"runtime_retryable":false,"tool":"nope","unexpected":false}}`,
}

// partGolden is the same for returns inside a message (model.Part), whose
// metadata comes last and is never omitted.
var partGolden = map[string]string{
	"success":  `{"kind":"tool_return","tool_call_id":"c1","name":"q","content":{"rows":3},"is_error":false,"app_value":[1],"user_content":"3 rows","private_metadata":{"plan":"x"},"metadata":{"source":"db"}}`,
	"approval": `{"kind":"tool_return","tool_call_id":"c3","name":"deploy","content":{"error":"tool deploy call requires approval before execution","how_to_fix":"Wait for a person to approve or deny this call.","kind":"approval_required","message":"deploy production","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"success":false,"tool":"deploy","unexpected":false},"is_error":true,"metadata":{"approval":{"reason":"deploy production","risk":"high"},"control_flow":"approval_required","error_kind":"approval_required","how_to_fix":"Wait for a person to approve or deny this call.","message":"deploy production","model_retryable":false,"retry_requires_corrected_input":false,"retryable":false,"runtime_retryable":false,"starweaver.approval_tool_arguments":{"env":"prod","n":1.50},"tool":"deploy","unexpected":false}}`,
}
