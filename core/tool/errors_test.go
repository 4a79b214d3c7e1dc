package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// kindCase is the expected return of one error kind, from the runtime
// semantics (reference section 2 and the SDK's section 5).
type kindCase struct {
	err            *tool.Error
	isError        bool
	retryable      bool
	correctedInput bool
	modelRetryable bool
	unexpected     bool
	message        string
	errorText      string
}

func kindCases() map[tool.ErrorKind]kindCase {
	return map[tool.ErrorKind]kindCase{
		tool.ErrorKindNotFound: {err: &tool.Error{Kind: tool.ErrorKindNotFound, Message: `tool "t" is not registered for this run`},
			isError: false, retryable: true, correctedInput: true,
			message: `tool "t" is not registered for this run`, errorText: `tool "t" is not registered for this run`},
		tool.ErrorKindInvalidArguments: {err: tool.InvalidArguments("bad %s", "limit"),
			isError: true, retryable: true, correctedInput: true, modelRetryable: true,
			message: "bad limit", errorText: "tool t received invalid arguments: bad limit"},
		tool.ErrorKindModelRetry: {err: tool.ModelRetry("use a smaller page"),
			isError: true, retryable: true, correctedInput: true, modelRetryable: true,
			message: "use a smaller page", errorText: "tool t requested model retry: use a smaller page"},
		tool.ErrorKindFeedback: {err: tool.Feedback("file %q missing", "a.txt"),
			isError: false, retryable: true,
			message: `file "a.txt" missing`, errorText: `tool t feedback: file "a.txt" missing`},
		tool.ErrorKindUserError: {err: tool.UserError("no database configured"),
			isError: true,
			message: "no database configured", errorText: "tool t user error: no database configured"},
		tool.ErrorKindExecution: {err: tool.AsError(errors.New("disk on fire")),
			isError: true, retryable: true, unexpected: true,
			message: "disk on fire", errorText: "tool t execution failed: disk on fire"},
		tool.ErrorKindTimeout: {err: tool.Timeout(1500),
			isError: true, retryable: true, correctedInput: true,
			message: "exceeded 1500ms", errorText: "tool t execution exceeded the 1500ms timeout"},
		tool.ErrorKindCancelled: {err: tool.Cancelled("user pressed stop"),
			isError: true,
			message: "user pressed stop", errorText: "tool t cancelled: user pressed stop"},
		tool.ErrorKindApprovalRequired: {err: tool.ApprovalRequired("dangerous", map[string]any{"risk": "high"}),
			isError: true,
			message: "dangerous", errorText: "tool t call requires approval before execution"},
		tool.ErrorKindCallDeferred: {err: tool.CallDeferred("", map[string]any{"worker": "w1"}),
			isError: true,
			message: "call deferred", errorText: "tool t call was deferred to an external worker or later run"},
		tool.ErrorKindApprovalDenied: {err: &tool.Error{Kind: tool.ErrorKindApprovalDenied, Message: "too risky"},
			isError: true,
			message: "too risky", errorText: "tool t call was denied: too risky"},
		tool.ErrorKindDeferredFailed: {err: &tool.Error{Kind: tool.ErrorKindDeferredFailed, Message: "worker crashed"},
			isError: true,
			message: "worker crashed", errorText: "tool t deferred call failed: worker crashed"},
		tool.ErrorKindDeferredCancelled: {err: &tool.Error{Kind: tool.ErrorKindDeferredCancelled, Message: "withdrawn"},
			isError: true,
			message: "withdrawn", errorText: "tool t deferred call was cancelled: withdrawn"},
		tool.ErrorKindInvalidOutput: {err: tool.InvalidOutput("%d bytes, more than %d", 10, 5),
			isError: true,
			message: "10 bytes, more than 5", errorText: "tool t returned an invalid output: 10 bytes, more than 5"},
	}
}

func TestParseErrorKind(t *testing.T) {
	for _, k := range tool.ErrorKinds() {
		got, err := tool.ParseErrorKind(string(k))
		if err != nil || got != k {
			t.Fatalf("ParseErrorKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, s := range []string{"", "Execution", "approval_denied ", "bogus"} {
		if got, err := tool.ParseErrorKind(s); !errors.Is(err, tool.ErrUnknownErrorKind) || got != "" {
			t.Fatalf("ParseErrorKind(%q) = %q, %v; want ErrUnknownErrorKind", s, got, err)
		}
	}
	// The caller owns the list: changing it changes nothing.
	tool.ErrorKinds()[0] = "changed"
	if tool.ErrorKinds()[0] != tool.ErrorKindNotFound {
		t.Fatal("ErrorKinds shares its backing array")
	}
}

// Tools raise every kind except those only the runtime decides.
func TestToolRaisable(t *testing.T) {
	runtimeOnly := []tool.ErrorKind{tool.ErrorKindNotFound, tool.ErrorKindApprovalDenied, tool.ErrorKindDeferredFailed, tool.ErrorKindDeferredCancelled,
		tool.ErrorKindInvalidOutput}
	for _, k := range tool.ErrorKinds() {
		if want := !slices.Contains(runtimeOnly, k); k.ToolRaisable() != want {
			t.Fatalf("%s.ToolRaisable() = %v, want %v", k, !want, want)
		}
	}
	if tool.ErrorKind("bogus").ToolRaisable() {
		t.Fatal("an unknown kind is raisable")
	}
}

func TestErrorKindsParity(t *testing.T) {
	kinds := tool.ErrorKinds()
	want := []string{"not_found", "invalid_arguments", "model_retry", "feedback", "user_error", "execution",
		"timeout", "cancelled", "approval_required", "call_deferred",
		"approval_denied", "deferred_failed", "deferred_cancelled", "invalid_output"}
	var got []string
	for _, k := range kinds {
		got = append(got, string(k))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ErrorKinds() = %v, want %v", got, want)
	}
	cases := kindCases()
	if len(cases) != len(kinds) {
		t.Fatalf("test table has %d kinds, ErrorKinds has %d", len(cases), len(kinds))
	}
}

func TestErrorReturnForEveryKind(t *testing.T) {
	cases := kindCases()
	c := call("call-1", "t", `{"path":"/tmp/x"}`)
	for _, k := range tool.ErrorKinds() {
		tc, ok := cases[k]
		if !ok {
			t.Fatalf("no test case for kind %q", k)
		}
		t.Run(string(k), func(t *testing.T) {
			if tc.err.Kind != k {
				t.Fatalf("constructor made kind %q", tc.err.Kind)
			}
			f := tool.FlagsOf(k)
			if f != (tool.Flags{IsError: tc.isError, Retryable: tc.retryable, CorrectedInput: tc.correctedInput,
				ModelRetryable: tc.modelRetryable, Unexpected: tc.unexpected}) {
				t.Fatalf("FlagsOf(%q) = %+v", k, f)
			}
			ret := tool.ErrorReturn(c, tc.err)
			if ret.ToolCallID != "call-1" || ret.Name != "t" {
				t.Fatalf("id/name = %q/%q", ret.ToolCallID, ret.Name)
			}
			if ret.IsError != tc.isError {
				t.Fatalf("is_error = %v, want %v", ret.IsError, tc.isError)
			}
			if ret.ErrorKind() != k {
				t.Fatalf("ErrorKind() = %q", ret.ErrorKind())
			}
			cont := content(t, ret)
			wantContent := map[string]any{
				"error":                          tc.errorText,
				"kind":                           string(k),
				"tool":                           "t",
				"message":                        tc.message,
				"how_to_fix":                     tc.err.HowToFix(),
				"retryable":                      tc.retryable,
				"retry_requires_corrected_input": tc.correctedInput,
				"runtime_retryable":              tc.modelRetryable,
				"model_retryable":                tc.modelRetryable,
				"unexpected":                     tc.unexpected,
				"success":                        false,
			}
			wantMeta := map[string]any{
				"error_kind":                     string(k),
				"tool":                           "t",
				"message":                        tc.message,
				"how_to_fix":                     tc.err.HowToFix(),
				"retryable":                      tc.retryable,
				"retry_requires_corrected_input": tc.correctedInput,
				"runtime_retryable":              tc.modelRetryable,
				"model_retryable":                tc.modelRetryable,
				"unexpected":                     tc.unexpected,
			}
			switch k {
			case tool.ErrorKindTimeout:
				wantContent["timeout_ms"] = 1500
				wantMeta["timeout_ms"] = 1500
			case tool.ErrorKindApprovalRequired:
				wantMeta["control_flow"] = "approval_required"
				wantMeta["approval"] = map[string]any{"risk": "high", "reason": "dangerous"}
				wantMeta["starweaver.approval_tool_arguments"] = map[string]any{"path": "/tmp/x"}
			case tool.ErrorKindCallDeferred:
				wantMeta["control_flow"] = "call_deferred"
				wantMeta["deferred"] = map[string]any{"worker": "w1"}
				wantMeta["starweaver.deferred_tool_arguments"] = map[string]any{"path": "/tmp/x"}
			}
			if !jsonEqual(t, cont, wantContent) {
				t.Errorf("content =\n%s\nwant\n%s", mustJSON(t, cont), mustJSON(t, wantContent))
			}
			if !jsonEqual(t, ret.WireMetadata(), wantMeta) {
				t.Errorf("metadata =\n%s\nwant\n%s", mustJSON(t, ret.WireMetadata()), mustJSON(t, wantMeta))
			}
			if ret.PrivateMetadata != nil || ret.AppValue != nil || ret.UserContent != nil {
				t.Errorf("unexpected private/app/user surfaces: %+v", ret)
			}
			if _, err := json.Marshal(ret); err != nil {
				t.Errorf("return does not marshal: %v", err)
			}
		})
	}
}

// Every kind reaches the model through the registry with the same shape.
func TestRegistryReturnsEveryKind(t *testing.T) {
	for _, k := range tool.ErrorKinds() {
		t.Run(string(k), func(t *testing.T) {
			tc := kindCases()[k]
			var calls int
			f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
				calls++
				return tool.Result{}, tc.err
			}).WithMaxRetries(0)
			r := mustRegistry(t, f)
			name := "t"
			if k == tool.ErrorKindNotFound {
				name = "missing"
			}
			ret := r.Execute(context.Background(), nil, call("id", name, `{}`))
			wantKind(t, ret, k)
			if ret.IsError != tc.isError {
				t.Fatalf("is_error = %v, want %v", ret.IsError, tc.isError)
			}
			if k == tool.ErrorKindNotFound {
				if calls != 0 {
					t.Fatal("a tool ran for an unknown name")
				}
				if m := content(t, ret)["message"]; m != `tool "missing" is not registered for this run` {
					t.Fatalf("not_found message = %q", m)
				}
				return
			}
			if calls != 1 {
				t.Fatalf("tool ran %d times, want 1", calls)
			}
			if content(t, ret)["tool"] != "t" {
				t.Fatalf("content tool = %v", content(t, ret)["tool"])
			}
		})
	}
}

func TestErrorHowToFix(t *testing.T) {
	seen := map[string]tool.ErrorKind{}
	for _, k := range tool.ErrorKinds() {
		e := &tool.Error{Kind: k, Message: "MSG"}
		h := e.HowToFix()
		if h == "" {
			t.Errorf("%s: empty how_to_fix", k)
		}
		if prev, dup := seen[h]; dup {
			t.Errorf("%s and %s share how_to_fix %q", k, prev, h)
		}
		seen[h] = k
		endsWithMsg := strings.HasSuffix(h, "MSG")
		if want := k == tool.ErrorKindFeedback || k == tool.ErrorKindModelRetry; endsWithMsg != want {
			t.Errorf("%s: how_to_fix %q ends with the message: %v, want %v", k, h, endsWithMsg, want)
		}
	}
}

func TestErrorConstructors(t *testing.T) {
	// A message without arguments is not a format string.
	if got := tool.InvalidArguments("100% wrong").Message; got != "100% wrong" {
		t.Errorf("InvalidArguments message = %q", got)
	}
	md := map[string]any{"k": "v"}
	a := tool.ApprovalRequired("", md)
	if a.Message != "approval required" || len(a.Metadata) != 1 {
		t.Errorf("ApprovalRequired(\"\") = %+v", a)
	}
	a.Metadata["x"] = 1
	if len(md) != 1 {
		t.Error("ApprovalRequired aliases the caller's metadata")
	}
	if d := tool.CallDeferred("later", nil); d.Message != "later" || d.Metadata["reason"] != "later" {
		t.Errorf("CallDeferred = %+v", d)
	}
	if d := tool.CallDeferred("", nil); d.Message != "call deferred" || d.Metadata == nil {
		t.Errorf("CallDeferred(\"\") = %+v", d)
	}
	cause := errors.New("root cause")
	e := &tool.Error{Kind: tool.ErrorKindExecution, Message: "m", Err: cause}
	if !errors.Is(e, cause) {
		t.Error("Error does not unwrap to its cause")
	}
	if (&tool.Error{Kind: tool.ErrorKindFeedback}).Error() != "tool ? feedback: " {
		t.Errorf("unnamed tool error = %q", (&tool.Error{Kind: tool.ErrorKindFeedback}).Error())
	}
}

func TestAsErrorAndKindOf(t *testing.T) {
	fb := tool.Feedback("x")
	wrapped := fmt.Errorf("layer: %w", fb)
	if tool.AsError(wrapped) != fb {
		t.Error("AsError does not find a wrapped *Error")
	}
	if tool.KindOf(wrapped) != tool.ErrorKindFeedback {
		t.Errorf("KindOf(wrapped feedback) = %q", tool.KindOf(wrapped))
	}
	plain := errors.New("boom")
	if e := tool.AsError(plain); e.Kind != tool.ErrorKindExecution || e.Message != "boom" || !errors.Is(e, plain) {
		t.Errorf("AsError(plain) = %+v", e)
	}
	if tool.KindOf(plain) != tool.ErrorKindExecution {
		t.Errorf("KindOf(plain) = %q", tool.KindOf(plain))
	}
	// nil and typed-nil errors never panic.
	if tool.AsError(nil) != nil {
		t.Error("AsError(nil) != nil")
	}
	if k := tool.KindOf(nil); k != "" {
		t.Errorf("KindOf(nil) = %q, want \"\"", k)
	}
	var typedNil *tool.Error
	var asErr error = typedNil
	_ = tool.KindOf(asErr)
	_ = tool.AsError(asErr)
	_ = tool.KindOf(fmt.Errorf("w: %w", asErr))
	_ = typedNil.Error()
	ret := tool.ErrorReturn(call("i", "t", `{}`), nil)
	wantKind(t, ret, tool.ErrorKindExecution)
	ret = tool.ErrorReturn(call("i", "t", `{}`), fmt.Errorf("w: %w", asErr))
	wantKind(t, ret, tool.ErrorKindExecution)
}

func TestWithPrivateMetadata(t *testing.T) {
	base := tool.Feedback("not found")
	e := tool.WithPrivateMetadata(base, map[string]any{"trace": "abc"})
	e = tool.WithPrivateMetadata(e, map[string]any{"host": "h1"})
	if e.Kind != tool.ErrorKindFeedback {
		t.Fatalf("kind = %q, want feedback", e.Kind)
	}
	if base.PrivateMetadata != nil {
		t.Fatal("WithPrivateMetadata modified the original error")
	}
	ret := tool.ErrorReturn(call("i", "t", `{}`), e)
	if !jsonEqual(t, ret.PrivateMetadata, map[string]any{"trace": "abc", "host": "h1"}) {
		t.Fatalf("private metadata = %v", ret.PrivateMetadata)
	}
	whole := mustJSON(t, ret.Content) + mustJSON(t, ret.Metadata)
	if strings.Contains(whole, "abc") || strings.Contains(whole, "h1") {
		t.Fatalf("private metadata leaked into content or metadata: %s", whole)
	}
	if ret.IsError {
		t.Fatal("feedback with private metadata became is_error")
	}
	// Plain errors become execution failures.
	if e := tool.WithPrivateMetadata(errors.New("x"), map[string]any{"a": 1}); e.Kind != tool.ErrorKindExecution {
		t.Fatalf("kind = %q", e.Kind)
	}
	// nil does not panic.
	if e := tool.WithPrivateMetadata(nil, map[string]any{"a": 1}); e == nil || e.PrivateMetadata["a"] != 1 {
		t.Fatalf("WithPrivateMetadata(nil) = %+v", e)
	}
}

// A tool can attach private metadata to its error; it reaches the return
// but not the model.
func TestPrivateMetadataOnToolErrors(t *testing.T) {
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.WithPrivateMetadata(tool.UserError("misconfigured"), map[string]any{"dsn": "postgres://u:pw@h"})
	})
	ret := mustRegistry(t, f).Execute(context.Background(), nil, call("i", "t", `{}`))
	wantKind(t, ret, tool.ErrorKindUserError)
	if ret.PrivateMetadata["dsn"] != "postgres://u:pw@h" {
		t.Fatalf("private metadata = %v", ret.PrivateMetadata)
	}
	if s := mustJSON(t, ret.Content) + mustJSON(t, ret.Metadata); strings.Contains(s, "pw@h") {
		t.Fatalf("private metadata leaked: %s", s)
	}
}

func TestApprovalReturnWithoutMetadata(t *testing.T) {
	ret := tool.ErrorReturn(call("i", "t", `{"a":1}`), &tool.Error{Kind: tool.ErrorKindApprovalRequired})
	if _, err := json.Marshal(ret); err != nil {
		t.Fatal(err)
	}
	if ret.WireMetadata()["control_flow"] != "approval_required" {
		t.Fatalf("control_flow = %v", ret.WireMetadata()["control_flow"])
	}
	if !jsonEqual(t, ret.WireMetadata()["approval"], map[string]any{}) {
		t.Fatalf("approval = %v, want {}", ret.WireMetadata()["approval"])
	}
	// Arguments that are not JSON never make the return unserialisable.
	ret = tool.ErrorReturn(tool.Call{ID: "i", Name: "t", Arguments: json.RawMessage(`{oops`)}, tool.CallDeferred("", nil))
	if _, err := json.Marshal(ret); err != nil {
		t.Fatalf("return with raw invalid arguments does not marshal: %v", err)
	}
}
