package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func pendingTool(name string, c tool.PendingCompletion, seen *string) *tool.Function {
	return tool.New(name, "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if seen != nil {
			*seen = tc.CompletionKey()
		}
		return tool.Result{}, tool.Pending("queued", c)
	})
}

func keys(tc *tool.Context) string { return "key-of-" + tc.ToolCallID }

// A tool that declares it may defer pauses with its completion and the
// key the registry reserved for it, which it saw in its context.
func TestPendingFromADeclaredTool(t *testing.T) {
	var seen string
	r := mustRegistry(t, pendingTool("render", tool.PendingCompletion{OnTimeout: "fail_turn", DeadlineMS: 5}, &seen).WithAttemptMayDefer(true))
	r.SetCompletionKeys(keys)
	ret := r.Execute(context.Background(), nil, call("c1", "render", `{}`))
	if ret.ErrorKind() != tool.ErrorKindCallDeferred || seen != "key-of-c1" {
		t.Fatalf("kind %q seen %q", ret.ErrorKind(), seen)
	}
	c, ok := tool.PendingOf(ret.Runtime.Request)
	if !ok || c.OnTimeout != "fail_turn" || c.DeadlineMS != 5 || ret.Runtime.Request[tool.MetaCompletionKey] != "key-of-c1" {
		t.Fatalf("request %+v", ret.Runtime.Request)
	}
}

// Pending from a tool that did not declare it is a clear user_error; such
// a tool gets no completion key.
func TestPendingFromAnUndeclaredTool(t *testing.T) {
	seen := "unset"
	r := mustRegistry(t, pendingTool("render", tool.PendingCompletion{}, &seen))
	r.SetCompletionKeys(keys)
	ret := r.Execute(context.Background(), nil, call("c1", "render", `{}`))
	msg, _ := ret.Metadata[tool.MetaMessage].(string)
	if ret.ErrorKind() != tool.ErrorKindUserError || !strings.Contains(msg, "does not declare attempt_may_defer") || seen != "" {
		t.Fatalf("kind %q message %q seen %q", ret.ErrorKind(), msg, seen)
	}
}

// A completion the runtime does not know, and intents with a Pending,
// fail the call.
func TestPendingIsChecked(t *testing.T) {
	r := mustRegistry(t, pendingTool("bad", tool.PendingCompletion{OnCancel: "explode"}, nil).WithAttemptMayDefer(true))
	if ret := r.Execute(context.Background(), nil, call("c1", "bad", `{}`)); ret.ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("kind %q", ret.ErrorKind())
	}
	withIntents := tool.New("both", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Intents: tool.RawIntents(`{"protocol_version":1,"intents":[{"kind":"cancel_process","intent":{}}]}`)},
			tool.Pending("", tool.PendingCompletion{})
	}).WithAttemptMayDefer(true)
	r = mustRegistry(t, withIntents)
	ret := r.Execute(context.Background(), nil, call("c1", "both", `{}`))
	if ret.ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("pending with intents: kind %q", ret.ErrorKind())
	}
}

// CallDeferred stays a deferral any tool may ask for, without a key.
func TestCallDeferredNeedsNoDeclaration(t *testing.T) {
	f := tool.New("ask", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.CallDeferred("client", nil)
	})
	r := mustRegistry(t, f)
	r.SetCompletionKeys(keys)
	ret := r.Execute(context.Background(), nil, call("c1", "ask", `{}`))
	if _, pending := tool.PendingOf(ret.Runtime.Request); ret.ErrorKind() != tool.ErrorKindCallDeferred || pending || ret.Runtime.Request[tool.MetaCompletionKey] != nil {
		t.Fatalf("return %+v", ret.Runtime)
	}
}
