package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A run that fails after the model asked for calls keeps its messages in
// the session; the calls that never ran get cancelled returns, so the
// history stays valid and the next run continues after it.
func TestFailedRunKeepsMessagesWithDanglingCallsAnswered(t *testing.T) {
	ctx := context.Background()
	m := model.NewTestModel(calls(model.Call("c1", "note", nil), model.Call("c2", "note", nil)), text("next"))
	a := agent.NewBuilder(m).Tool(noteTool()).UsageLimits(agent.UsageLimits{ToolCallsLimit: 1}).MustBuild()
	s := a.NewSession()
	res, err := s.Run(ctx, "go")
	if !errors.Is(err, agent.ErrUsageLimitExceeded) || res.Status != agent.StatusFailed {
		t.Fatalf("run: %v", err)
	}
	hist := s.Messages()
	if len(hist) != 3 || len(res.Messages) != 3 {
		t.Fatalf("session has %d messages, result %d; want 3 (prompt, calls, their returns)", len(hist), len(res.Messages))
	}
	if err := agent.ValidateHistory(hist); err != nil {
		t.Fatalf("history is not valid: %v", err)
	}
	rets := hist[2].Returns()
	if len(rets) != 2 || rets[0].ToolCallID != "c1" || rets[1].ToolCallID != "c2" || !rets[0].IsError || rets[0].ErrorKind() != "cancelled" {
		t.Fatalf("returns: %+v", rets)
	}
	if !strings.Contains(rets[0].Content.(map[string]any)["message"].(string), "the run failed before this call ran") {
		t.Fatalf("return says: %v", rets[0].Content)
	}
	next, err := s.Run(ctx, "again")
	if err != nil || next.Output != "next" {
		t.Fatalf("next run: %v", err)
	}
	if len(next.Messages) != 5 || m.Requests()[1].Messages[2].Kind != model.KindRequest {
		t.Fatalf("next run saw %d messages", len(m.Requests()[1].Messages))
	}
}

// A cancelled run keeps its prompt in the session too.
func TestCancelledRunKeepsItsPrompt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := agent.NewBuilder(model.NewTestModel(text("x"))).MustBuild().NewSession()
	if _, err := s.Run(ctx, "hello"); !errors.Is(err, agent.ErrCancelled) {
		t.Fatalf("run: %v", err)
	}
	if hist := s.Messages(); len(hist) != 1 || hist[0].Parts[0].Kind != model.KindUserPrompt {
		t.Fatalf("history: %+v", hist)
	}
}

func TestSessionFromMessagesContinues(t *testing.T) {
	ctx := context.Background()
	first, err := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "note", nil)), text("one"))).
		Tool(noteTool()).MustBuild().Run(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(first.Messages)
	msgs, err := agent.DecodeMessages(data)
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewTestModel(text("two"))
	s, err := agent.NewBuilder(m).MustBuild().SessionFromMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(ctx, "second")
	if err != nil || res.Output != "two" {
		t.Fatalf("run: %v", err)
	}
	seen := m.Requests()[0].Messages
	if len(seen) != 5 || len(res.NewMessages) != 2 || len(res.Messages) != 6 {
		t.Fatalf("model saw %d messages, result has %d new of %d", len(seen), len(res.NewMessages), len(res.Messages))
	}
	if s.ID() == "" {
		t.Fatal("no conversation id")
	}
}

func TestValidateHistory(t *testing.T) {
	user := model.Request(model.UserPrompt("hi"))
	call := calls(model.Call("c1", "note", nil))
	ret := func(id string) model.Message {
		return model.Request(model.ToolReturn(toolReturn(id)))
	}
	for _, tc := range []struct {
		name string
		msgs []model.Message
		want string // "" = valid
	}{
		{"empty", nil, ""},
		{"prompt and answer", []model.Message{user, text("ok")}, ""},
		{"call answered", []model.Message{user, call, ret("c1"), text("ok")}, ""},
		{"call answered by a retry prompt", []model.Message{user, call, model.Request(model.RetryPrompt("again", "c1"))}, ""},
		{"dangling call at the end", []model.Message{user, call}, `tool call "c1" is not answered by message 2`},
		{"call answered late", []model.Message{user, call, user, ret("c1")}, `tool call "c1" is not answered by message 2`},
		{"return of an unknown call", []model.Message{user, text("ok"), ret("zz")}, `returns call "zz"`},
		{"unknown message kind", []model.Message{{Kind: "note", Parts: []model.Part{model.TextPart("x")}}}, `kind "note"`},
		{"no parts", []model.Message{{Kind: model.KindRequest}}, "no parts"},
		{"response part in a request", []model.Message{model.Request(model.TextPart("x"))}, `"text" is not a request part`},
		{"request part in a response", []model.Message{model.Response(model.UserPrompt("x"))}, `"user_prompt" is not a response part`},
		{"call without an id", []model.Message{user, calls(model.Call("", "note", nil))}, "needs an id and a name"},
		{"repeated call id", []model.Message{user, calls(model.Call("c1", "note", nil), model.Call("c1", "note", nil))}, "repeats"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agent.ValidateHistory(tc.msgs)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, agent.ErrInvalidHistory) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := agent.NewBuilder(model.NewTestModel()).MustBuild().SessionFromMessages([]model.Message{user, call}); !errors.Is(err, agent.ErrInvalidHistory) {
		t.Fatalf("SessionFromMessages accepted an invalid history: %v", err)
	}
	if _, err := agent.DecodeMessages([]byte(`[{"kind":"request","parts":[{"kind":"nope"}]}]`)); !errors.Is(err, agent.ErrInvalidHistory) {
		t.Fatalf("DecodeMessages: %v", err)
	}
}

func toolReturn(id string) tool.Return {
	return tool.SuccessReturn(tool.Call{ID: id, Name: "note"}, tool.Text("ok"))
}

// A resumed run that fails keeps the session waiting with its history as it
// was, so the same answers can be given again (unlike a fresh run, whose
// messages the session keeps).
func TestFailedResumeLeavesTheSessionWaiting(t *testing.T) {
	d := &deployTool{}
	s, _ := waitingSession(t, d) // the script ends: the resumed request fails
	before := len(s.Messages())
	p := s.Pending()[0]
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p.ID, Approved: true}}})
	if !errors.Is(err, agent.ErrModel) || res.Status != agent.StatusFailed || len(res.Messages) <= before {
		t.Fatalf("resume: %v", err)
	}
	if !s.Waiting() || len(s.Messages()) != before {
		t.Fatalf("waiting %v, %d messages (want %d)", s.Waiting(), len(s.Messages()), before)
	}
}
