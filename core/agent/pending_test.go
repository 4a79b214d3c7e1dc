package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// renderTool starts external work and returns Pending; it records the
// completion key it handed on.
type renderTool struct {
	mu   sync.Mutex
	keys []string
}

func (r *renderTool) tool() *tool.Function {
	return tool.New("render", "Render a scene", map[string]any{"type": "object"},
		func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			r.mu.Lock()
			r.keys = append(r.keys, tc.CompletionKey())
			r.mu.Unlock()
			return tool.Result{}, tool.Pending("queued on the farm", tool.PendingCompletion{OnCancel: "cancel_external_work"})
		}).WithAttemptMayDefer(true)
}

// A declared tool's Pending pauses the run under the completion key the
// tool saw, and the host completes it by that key.
func TestPendingCompletesByKey(t *testing.T) {
	rt := &renderTool{}
	m := model.NewTestModel(calls(model.Call("c1", "render", map[string]any{})), text("rendered"))
	s := agent.NewBuilder(m).Tool(rt.tool()).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "render")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	p := s.Pending()
	want, _ := intent.DeriveCompletionKey(s.ID(), res.RunID+":0", "c1")
	if len(p) != 1 || p[0].Kind != agent.PendingDeferred || p[0].CompletionKey != want || rt.keys[0] != want {
		t.Fatalf("pending %+v, tool saw %v, want %q", p, rt.keys, want)
	}
	if c, ok := tool.PendingOf(p[0].Metadata); !ok || c.OnCancel != "cancel_external_work" {
		t.Fatalf("metadata %+v", p[0].Metadata)
	}
	res, err = s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{{
		ID: want, Status: agent.DeferredCompleted, Response: json.RawMessage(`{"url":"intro.mp4"}`),
	}}})
	if err != nil || res.Output != "rendered" {
		t.Fatalf("resume: %v %v", res, err)
	}
	ret := lastReturn(t, lastRequest(m), "c1")
	if b, _ := json.Marshal(ret.Content); string(b) != `{"url":"intro.mp4"}` {
		t.Fatalf("return %s", b)
	}
}

// With an intent journal, the pending attempt is the call's committed
// final attempt (it holds no intents), so a redrive waits again instead
// of starting the work twice.
func TestPendingIsJournaled(t *testing.T) {
	rt := &renderTool{}
	j := intent.NewMemoryJournal()
	m := model.NewTestModel(calls(model.Call("c1", "render", map[string]any{})))
	a := agent.NewBuilder(m).Tool(rt.tool()).IntentJournal(j).MustBuild()
	s := a.NewSession()
	res, err := s.Run(context.Background(), "render")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	o, ok, err := a.IntentRealiser().Final(context.Background(), intent.Call{Session: s.ID(), Scope: agent.TurnScope(res.RunID, 0), CallID: "c1"})
	if err != nil || !ok {
		t.Fatalf("final %v %v", ok, err)
	}
	p, pending := o.(intent.Pending)
	if !pending || p.Completion.OnCancel != intent.CancelCancelExternalWork {
		t.Fatalf("final %#v", o)
	}
}

// A tool that returns Pending without declaring it fails the call, and
// the model reads why.
func TestUndeclaredPendingFails(t *testing.T) {
	f := tool.New("render", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.Pending("", tool.PendingCompletion{})
	})
	m := model.NewTestModel(calls(model.Call("c1", "render", map[string]any{})), text("ok"))
	res, err := agent.NewBuilder(m).Tool(f).MustBuild().NewSession().Run(context.Background(), "render")
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("run: %v %v", res, err)
	}
	ret := lastReturn(t, lastRequest(m), "c1")
	msg, _ := ret.Metadata[tool.MetaMessage].(string)
	if ret.ErrorKind() != tool.ErrorKindUserError || !strings.Contains(msg, "attempt_may_defer") {
		t.Fatalf("return %+v", ret)
	}
}
