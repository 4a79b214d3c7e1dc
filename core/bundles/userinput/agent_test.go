package userinput_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/bundles/userinput"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

const (
	dbQuestion      = "Which database should I use?"
	featureQuestion = "Which features do you need?"
)

// waiting runs a session whose model asks the clarifying questions of
// validArgs and then answers "done".
func waiting(t *testing.T, build func(*agent.Builder)) (*agent.Session, *model.TestModel, *agent.RunResult) {
	t.Helper()
	m := model.NewTestModel(
		model.CallsResponse(model.Call("call_ask", userinput.ToolName, validArgs())),
		model.Response(model.TextPart("done")),
	)
	b := agent.NewBuilder(m).Toolset(userinput.Tools())
	if build != nil {
		build(b)
	}
	s := b.MustBuild().NewSession()
	res, err := s.Run(context.Background(), "set up the project")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	return s, m, res
}

// resume approves the pending call with input and returns the return the
// model then received for call_ask.
func resume(t *testing.T, s *agent.Session, m *model.TestModel, d agent.ApprovalDecision) tool.Return {
	t.Helper()
	if d.ID == "" {
		d.ID = s.Pending()[0].ID
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{d}})
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "done" {
		t.Fatalf("resume: %+v %v", res, err)
	}
	reqs := m.Requests()
	msgs := reqs[len(reqs)-1].Messages
	rets := msgs[len(msgs)-1].Returns()
	if len(rets) != 1 || rets[0].ToolCallID != "call_ask" || rets[0].Name != userinput.ToolName {
		t.Fatalf("returns %+v", rets)
	}
	return rets[0]
}

func TestAgentFlowAnswers(t *testing.T) {
	s, m, res := waiting(t, nil)

	// The model saw the tool and the toolset instruction.
	first := m.Requests()[0]
	if len(first.Params.Tools) != 1 || first.Params.Tools[0].Name != userinput.ToolName {
		t.Fatalf("tools %+v", first.Params.Tools)
	}
	if msgs := first.Messages; !strings.Contains(msgs[len(msgs)-1].Instructions, `<tool-instruction name="user_input">`) {
		t.Fatalf("instructions %q", msgs[len(msgs)-1].Instructions)
	}

	// The run waits on one approval that carries the questions.
	if len(res.Pending) != 1 {
		t.Fatalf("pending %+v", res.Pending)
	}
	p := res.Pending[0]
	questions := asJSON(t, validArgs()["questions"])
	if p.Kind != agent.PendingApproval || p.ToolName != userinput.ToolName || p.ToolCallID != "call_ask" ||
		p.Metadata["kind"] != "clarifying_questions" || p.Metadata["tool"] != userinput.ToolName ||
		!reflect.DeepEqual(asJSON(t, p.Metadata["questions"]), questions) {
		t.Fatalf("pending %+v", p)
	}

	ret := resume(t, s, m, agent.ApprovalDecision{
		ID: p.ID, Approved: true, DecidedBy: "ui",
		UserInput: json.RawMessage(`{"answers":{"` + dbQuestion + `":" SQLite ","` + featureQuestion + `":"Auth, Search"},"response":"keep it small"}`),
	})
	want := map[string]any{
		"questions": questions,
		"answers":   map[string]any{dbQuestion: "SQLite", featureQuestion: "Auth, Search"},
		"response":  "keep it small",
	}
	if ret.IsError || !reflect.DeepEqual(contentOf(t, ret.Content), want) {
		t.Fatalf("return %+v", ret)
	}
	if ret.Metadata["approval_state"] != "approved" || ret.Metadata["hitl_state"] != "resolved" || ret.Metadata["answered"] != true {
		t.Fatalf("metadata %v", ret.Metadata)
	}
	if s.Waiting() {
		t.Fatal("still waiting")
	}
}

func TestAgentFlowFreeFormReply(t *testing.T) {
	s, m, _ := waiting(t, nil)
	ret := resume(t, s, m, agent.ApprovalDecision{Approved: true, UserInput: json.RawMessage(`"Postgres, and only auth"`)})
	c := contentOf(t, ret.Content)
	if ret.IsError || c["response"] != "Postgres, and only auth" || !reflect.DeepEqual(c["answers"], map[string]any{}) {
		t.Fatalf("return %+v", ret)
	}
}

func TestAgentFlowApprovedWithoutInput(t *testing.T) {
	s, m, _ := waiting(t, nil)
	ret := resume(t, s, m, agent.ApprovalDecision{Approved: true})
	c := contentOf(t, ret.Content)
	if ret.IsError || ret.ErrorKind() != "" || c["note"] != userinput.UnansweredNote || !reflect.DeepEqual(c["answers"], map[string]any{}) {
		t.Fatalf("return %+v", ret)
	}
}

// A durable host may store normalised answers itself instead of sending
// user input; the approved call checks them against the questions.
func TestAgentFlowHostSuppliedAnswers(t *testing.T) {
	s, m, _ := waiting(t, nil)
	answers := userinput.Answers{Answers: map[string]string{dbQuestion: "Postgres"}, Response: "x"}
	ret := resume(t, s, m, agent.ApprovalDecision{Approved: true, Metadata: map[string]any{userinput.MetaAnswers: answers}})
	c := contentOf(t, ret.Content)
	if ret.IsError || !reflect.DeepEqual(c["answers"], map[string]any{dbQuestion: "Postgres"}) || c["response"] != "x" {
		t.Fatalf("return %+v", ret)
	}
}

func TestAgentFlowRejectedInput(t *testing.T) {
	cases := []struct{ name, input, want string }{
		{"blank string", `"   "`, "must not be blank"},
		{"blank answer", `{"answers":{"` + dbQuestion + `":"  "}}`, "must not be blank"},
		{"empty object", `{}`, "neither answers nor a response"},
		{"null", `null`, "no user input"},
		{"too long", `{"answers":{"` + dbQuestion + `":"` + strings.Repeat("x", userinput.MaxAnswerLength+1) + `"}}`, "the limit is 4000"},
		{"unknown question", `{"answers":{"Which cloud?":"aws"}}`, `"Which cloud?" is not one of the questions asked`},
		{"number", `7`, "got a number"},
		{"array", `["SQLite"]`, "got an array"},
		{"answer of the wrong type", `{"answers":{"` + dbQuestion + `":true}}`, "must be a string, got a boolean"},
		{"not JSON", `{"answers"`, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m, _ := waiting(t, nil)
			ret := resume(t, s, m, agent.ApprovalDecision{Approved: true, UserInput: json.RawMessage(c.input)})
			content := contentOf(t, ret.Content)
			if !ret.IsError || ret.ErrorKind() != tool.ErrorKindUserError || content["kind"] != "user_error" ||
				!strings.Contains(content["message"].(string), c.want) {
				t.Fatalf("return %+v", ret)
			}
			if _, leaked := content["answers"]; leaked {
				t.Fatal("answers reached the model")
			}
			// A person's bad input spends none of the model's retry budget.
			if content["model_retryable"] != false || ret.Metadata["retry"] != nil {
				t.Fatalf("retry accounting %v", ret.Metadata)
			}
		})
	}
}

func TestAgentFlowDenied(t *testing.T) {
	s, m, _ := waiting(t, nil)
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: "call_ask", Approved: false, Reason: "I'd rather not say",
	}}})
	if err != nil || res.Output != "done" {
		t.Fatalf("resume: %+v %v", res, err)
	}
	reqs := m.Requests()
	msgs := reqs[len(reqs)-1].Messages
	ret := msgs[len(msgs)-1].Returns()[0]
	c := contentOf(t, ret.Content)
	if !ret.IsError || c["kind"] != "approval_denied" || c["message"] != "I'd rather not say" {
		t.Fatalf("return %+v", ret)
	}
}

// An agent-wide approval policy does not gate the tool a second time.
func TestAgentFlowWithApprovalPolicy(t *testing.T) {
	s, m, res := waiting(t, func(b *agent.Builder) { b.ApprovalRequiredTools("*") })
	if len(res.Pending) != 1 || res.Pending[0].Metadata["kind"] != "clarifying_questions" {
		t.Fatalf("pending %+v", res.Pending)
	}
	ret := resume(t, s, m, agent.ApprovalDecision{Approved: true, UserInput: json.RawMessage(`{"response":"any"}`)})
	if ret.IsError || contentOf(t, ret.Content)["response"] != "any" {
		t.Fatalf("return %+v", ret)
	}
}

// The pending request survives exported state unchanged, since its
// metadata is plain JSON, and the restored session resumes.
func TestAgentFlowAcrossExportedState(t *testing.T) {
	s, m, res := waiting(t, nil)
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := s.Agent().SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	before, after := res.Pending[0], restored.Pending()[0]
	if !reflect.DeepEqual(before.Metadata, after.Metadata) {
		t.Fatalf("metadata changed across state:\n%#v\n%#v", before.Metadata, after.Metadata)
	}
	questions, err := userinput.ParseQuestions(after.Arguments)
	if err != nil || len(questions) != 2 || questions[0].Question != dbQuestion {
		t.Fatalf("questions %+v %v", questions, err)
	}
	ret := resume(t, restored, m, agent.ApprovalDecision{Approved: true, UserInput: json.RawMessage(`{"answers":{"` + dbQuestion + `":"SQLite"}}`)})
	if ret.IsError || !reflect.DeepEqual(contentOf(t, ret.Content)["answers"], map[string]any{dbQuestion: "SQLite"}) {
		t.Fatalf("return %+v", ret)
	}
}

// Invalid questions go back to the model as invalid_arguments and never
// pause the run.
func TestAgentFlowInvalidQuestions(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(model.Call("call_ask", userinput.ToolName, map[string]any{"questions": []any{q("Pick?", "Much too long header", "a", "b")}})),
		model.Response(model.TextPart("ok")),
	)
	res, err := agent.NewBuilder(m).Toolset(userinput.Tools()).MustBuild().Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusCompleted || len(res.Pending) != 0 {
		t.Fatalf("run %+v %v", res, err)
	}
	ret := res.Returns()[0]
	if ret.ErrorKind() != tool.ErrorKindInvalidArguments || !strings.Contains(contentOf(t, ret.Content)["message"].(string), "/questions/0/header") {
		t.Fatalf("return %+v", ret)
	}
}
