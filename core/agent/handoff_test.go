package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// toolNames are the names of the tools a request offered.
func toolNames(p model.Params) []string {
	var out []string
	for _, d := range p.Tools {
		out = append(out, d.Name)
	}
	return out
}

// A transfer call hands the run to the other agent: it answers with its
// own instructions and tools over the history, the first agent is not
// asked again, and the result names the last agent.
func TestHandoffTransfersTheRun(t *testing.T) {
	billingModel := model.NewTestModel(usedBy(text("your invoice is paid"), 50, 5))
	billing := agent.NewBuilder(billingModel).Name("Billing agent").Instructions("You handle billing.").
		Tool(tool.New("lookup", "", map[string]any{"type": "object"}, nil)).MustBuild()
	triageModel := model.NewTestModel(usedBy(calls(model.Call("h1", "transfer_to_billing_agent", map[string]any{})), 10, 1))
	triage := agent.NewBuilder(triageModel).Name("triage").Instructions("You route.").
		Handoffs(agent.HandoffTo(billing)).MustBuild()

	var mu sync.Mutex
	var events []agent.Event
	res, err := triage.Run(context.Background(), "was my invoice paid?", agent.WithEvents(func(ev agent.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}))
	if err != nil || res.Output != "your invoice is paid" {
		t.Fatalf("run: %+v %v", res, err)
	}
	if res.LastAgent != billing || res.LastAgentName != "Billing agent" {
		t.Fatalf("last agent %p %q, want billing", res.LastAgent, res.LastAgentName)
	}
	if n := len(triageModel.Requests()); n != 1 {
		t.Fatalf("triage asked %d times, want 1", n)
	}
	treq := triageModel.Requests()[0]
	if got := toolNames(treq.Params); len(got) != 1 || got[0] != "transfer_to_billing_agent" {
		t.Fatalf("triage tools %v", got)
	}
	if d := treq.Params.Tools[0]; !strings.Contains(d.Description, "Billing agent") {
		t.Fatalf("transfer description %q", d.Description)
	}
	breqs := billingModel.Requests()
	if len(breqs) != 1 {
		t.Fatalf("billing asked %d times", len(breqs))
	}
	msgs := breqs[0].Messages
	if len(msgs) != 3 || !strings.Contains(lastUserText(msgs[:1]), "was my invoice paid?") {
		t.Fatalf("billing read %+v", msgs)
	}
	last := msgs[len(msgs)-1]
	if last.Instructions != "You handle billing." {
		t.Fatalf("instructions %q", last.Instructions)
	}
	rets := last.Returns()
	if len(rets) != 1 || rets[0].Content != "Transferred to Billing agent." || rets[0].IsError {
		t.Fatalf("transfer return %+v", rets)
	}
	if got := toolNames(breqs[0].Params); len(got) != 1 || got[0] != "lookup" {
		t.Fatalf("billing tools %v", got)
	}
	// Usage counts both agents' requests; the transfer is a tool call.
	if want := (model.Usage{Requests: 2, InputTokens: 60, OutputTokens: 6, ToolCalls: 1}); res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
	// Events after the handoff carry the receiving agent's name; those
	// before carry none.
	mu.Lock()
	defer mu.Unlock()
	sawHandoff := false
	for _, ev := range events {
		if ev.Kind == agent.EventCustom && ev.Custom.Kind == agent.CustomHandoff {
			sawHandoff = true
			if ev.Custom.Payload["from"] != "triage" || ev.Custom.Payload["to"] != "Billing agent" || ev.AgentName != "Billing agent" {
				t.Fatalf("handoff event %+v", ev)
			}
			continue
		}
		want := ""
		if sawHandoff {
			want = "Billing agent"
		}
		if ev.AgentName != want {
			t.Fatalf("event %s after handoff=%v has agent %q", ev.Kind, sawHandoff, ev.AgentName)
		}
	}
	if !sawHandoff || events[len(events)-1].Kind != agent.EventRunComplete {
		t.Fatalf("events %+v", events)
	}
}

// The input filter decides what the receiving agent's model reads; the
// run's messages keep everything. OnHandoff runs once, with the call.
func TestHandoffInputFilterAndOnHandoff(t *testing.T) {
	refundModel := model.NewTestModel(text("refunded"))
	refund := agent.NewBuilder(refundModel).Name("refund").MustBuild()
	triageModel := model.NewTestModel(calls(model.Call("h1", "go_refund", map[string]any{})))
	var seen []agent.HandoffInput
	var filtered []model.Message
	triage := agent.NewBuilder(triageModel).Name("triage").Handoffs(agent.Handoff{
		Agent: refund, ToolName: "go_refund", Description: "refunds",
		OnHandoff: func(_ context.Context, in agent.HandoffInput) error {
			seen = append(seen, in)
			return nil
		},
		InputFilter: func(_ context.Context, _ agent.HandoffInput, history []model.Message) ([]model.Message, error) {
			filtered = history
			// Only the user's prompt: the transfer call and its return go.
			return history[:1], nil
		},
	}).MustBuild()
	res, err := triage.Run(context.Background(), "refund me")
	if err != nil || res.Output != "refunded" {
		t.Fatalf("run: %+v %v", res, err)
	}
	if len(seen) != 1 || seen[0].From != triage || seen[0].To != refund || seen[0].Call.ID != "h1" ||
		seen[0].Context.ToolCallID != "h1" || seen[0].Context.RunID != res.RunID {
		t.Fatalf("on_handoff saw %+v", seen)
	}
	if len(filtered) != 3 || filtered[2].Kind != model.KindRequest {
		t.Fatalf("filter read %+v", filtered)
	}
	msgs := refundModel.Requests()[0].Messages
	if len(msgs) != 1 || !strings.Contains(lastUserText(msgs), "refund me") {
		t.Fatalf("refund read %+v", msgs)
	}
	if len(res.Messages) != 4 {
		t.Fatalf("run messages %d, want 4 (prompt, call, return, answer)", len(res.Messages))
	}
}

// A failing OnHandoff or filter fails the run with ErrHandoff.
func TestHandoffCallbackErrorFailsTheRun(t *testing.T) {
	boom := errors.New("boom")
	for name, h := range map[string]agent.Handoff{
		"on_handoff": {OnHandoff: func(context.Context, agent.HandoffInput) error { return boom }},
		"filter": {InputFilter: func(context.Context, agent.HandoffInput, []model.Message) ([]model.Message, error) {
			return nil, boom
		}},
	} {
		t.Run(name, func(t *testing.T) {
			other := agent.NewBuilder(model.TextModel("never")).Name("other").MustBuild()
			h.Agent = other
			a := agent.NewBuilder(model.NewTestModel(calls(model.Call("h1", "transfer_to_other", map[string]any{})))).
				Handoffs(h).MustBuild()
			res, err := a.Run(context.Background(), "go")
			if !errors.Is(err, agent.ErrHandoff) || !errors.Is(err, boom) || res.Status != agent.StatusFailed {
				t.Fatalf("run: %+v %v", res, err)
			}
		})
	}
}

// Only the first transfer call of a response is honoured; the others
// are told so, and other calls of the response run.
func TestHandoffFirstOfManyWins(t *testing.T) {
	aModel := model.NewTestModel(text("from a"))
	a := agent.NewBuilder(aModel).Name("a").MustBuild()
	b := agent.NewBuilder(model.TextModel("from b")).Name("b").MustBuild()
	ran := 0
	echo := tool.New("echo", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran++
		return tool.Text("echoed"), nil
	})
	start := agent.NewBuilder(model.NewTestModel(calls(
		model.Call("c1", "echo", map[string]any{}),
		model.Call("c2", "transfer_to_a", map[string]any{}),
		model.Call("c3", "transfer_to_b", map[string]any{}),
	))).Tool(echo).Handoffs(agent.HandoffTo(a), agent.HandoffTo(b)).MustBuild()
	res, err := start.Run(context.Background(), "go")
	if err != nil || res.Output != "from a" || res.LastAgentName != "a" || ran != 1 {
		t.Fatalf("run: %+v %v (echo ran %d)", res, err, ran)
	}
	rets := res.Returns()
	if len(rets) != 3 || rets[1].Content != "Transferred to a." || rets[2].Content != "Multiple handoffs detected, ignoring this one." {
		t.Fatalf("returns %+v", rets)
	}
}

// Agents handing back and forth (a cycle, named late through Target)
// end at the run's request limit; the receiving agent's own handoffs
// apply after a handoff.
func TestHandoffCycleEndsAtTheRequestLimit(t *testing.T) {
	var ping *agent.Agent
	pong := agent.NewBuilder(model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return calls(model.Call("", "transfer_to_ping", map[string]any{})), nil
	})).Name("pong").Handoffs(agent.Handoff{ToolName: "transfer_to_ping", Target: func() *agent.Agent { return ping }}).MustBuild()
	ping = agent.NewBuilder(model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return calls(model.Call("", "transfer_to_pong", map[string]any{})), nil
	})).Name("ping").Handoffs(agent.HandoffTo(pong)).MustBuild()
	res, err := ping.Run(context.Background(), "go", agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 5}))
	if !errors.Is(err, agent.ErrUsageLimitExceeded) || res.Usage.Requests != 5 {
		t.Fatalf("run: %+v %v", res, err)
	}
	// Five requests: ping, pong, ping, pong, ping; the fifth handed off.
	if res.LastAgentName != "pong" {
		t.Fatalf("last agent %q", res.LastAgentName)
	}
}

// A transfer tool named like another tool of the agent, or two handoffs
// with one name, are configuration errors.
func TestHandoffNameCollision(t *testing.T) {
	other := agent.NewBuilder(model.TextModel("x")).Name("other").MustBuild()
	clash := tool.New("transfer_to_other", "", map[string]any{"type": "object"}, nil)
	if _, err := agent.NewBuilder(model.TextModel("x")).Tool(clash).Handoffs(agent.HandoffTo(other)).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("tool clash: %v", err)
	}
	if _, err := agent.NewBuilder(model.TextModel("x")).Handoffs(agent.HandoffTo(other), agent.HandoffTo(other)).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("twice: %v", err)
	}
	nameless := agent.NewBuilder(model.TextModel("x")).MustBuild()
	if _, err := agent.NewBuilder(model.TextModel("x")).Handoffs(agent.HandoffTo(nameless)).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("nameless: %v", err)
	}
	if got := agent.HandoffToolName("Billing Agent (EU)"); got != "transfer_to_billing_agent__eu_" {
		t.Fatalf("sanitized %q", got)
	}
}

// A session's next run starts again with the session's own agent, over
// the whole history.
func TestHandoffNextRunStartsWithTheSessionAgent(t *testing.T) {
	other := agent.NewBuilder(model.NewTestModel(text("other answers"))).Name("other").MustBuild()
	startModel := model.NewTestModel(calls(model.Call("h1", "transfer_to_other", map[string]any{})), text("start again"))
	start := agent.NewBuilder(startModel).Name("start").Handoffs(agent.HandoffTo(other)).MustBuild()
	s := start.NewSession()
	if res, err := s.Run(context.Background(), "one"); err != nil || res.LastAgentName != "other" {
		t.Fatalf("first: %+v %v", res, err)
	}
	res, err := s.Run(context.Background(), "two")
	if err != nil || res.Output != "start again" || res.LastAgent != start {
		t.Fatalf("second: %+v %v", res, err)
	}
	if n := len(startModel.Requests()[1].Messages); n != 5 {
		t.Fatalf("second run read %d messages, want 5", n)
	}
}

// A run that waits for an approval after a handoff resumes with the
// agent that was answering: its tools and its model.
func TestHandoffResumeContinuesWithTheAnsweringAgent(t *testing.T) {
	ran := 0
	deploy := tool.New("deploy", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran++
		return tool.Text("deployed"), nil
	})
	opsModel := model.NewTestModel(calls(model.Call("d1", "deploy", map[string]any{})), text("ops done"))
	ops := agent.NewBuilder(opsModel).Name("ops").Tool(deploy).ApprovalRequiredTools("deploy").MustBuild()
	startModel := model.NewTestModel(calls(model.Call("h1", "transfer_to_ops", map[string]any{})))
	start := agent.NewBuilder(startModel).Name("start").Handoffs(agent.HandoffTo(ops)).MustBuild()
	s := start.NewSession()
	res, err := s.Run(context.Background(), "deploy it")
	if err != nil || res.Status != agent.StatusWaiting || res.LastAgent != ops {
		t.Fatalf("run: %+v %v", res, err)
	}
	p := s.Pending()[0]
	res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p.ID, Approved: true}}})
	if err != nil || res.Output != "ops done" || res.LastAgent != ops || ran != 1 {
		t.Fatalf("resume: %+v %v (deploy ran %d)", res, err, ran)
	}
	if len(startModel.Requests()) != 1 || len(opsModel.Requests()) != 2 {
		t.Fatalf("requests: start %d, ops %d", len(startModel.Requests()), len(opsModel.Requests()))
	}
}

// A run with an executor (a durable engine) names the answering agent in
// its model requests and batches, so the worker asks that agent's model
// and runs that agent's tools.
func TestHandoffThroughAnExecutor(t *testing.T) {
	ran := 0
	lookup := tool.New("lookup", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran++
		return tool.Text("found"), nil
	})
	billingModel := model.NewTestModel(calls(model.Call("l1", "lookup", map[string]any{})), text("billing answers"))
	billing := agent.NewBuilder(billingModel).Name("billing").Tool(lookup).MustBuild()
	triageModel := model.NewTestModel(calls(model.Call("h1", "transfer_to_billing", map[string]any{})))
	triage := agent.NewBuilder(triageModel).Name("triage").Handoffs(agent.HandoffTo(billing)).MustBuild()
	x := &wireExecutor{worker: triage}
	res, err := triage.Run(context.Background(), "go", agent.WithExecutor(x))
	if err != nil || res.Output != "billing answers" || res.LastAgent != billing || ran != 1 {
		t.Fatalf("run: %+v %v (lookup ran %d)", res, err, ran)
	}
	if len(triageModel.Requests()) != 1 || len(billingModel.Requests()) != 2 {
		t.Fatalf("requests: triage %d, billing %d", len(triageModel.Requests()), len(billingModel.Requests()))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	named := 0
	for _, l := range x.log {
		if strings.Contains(l, `"agent":"billing"`) {
			named++
		}
	}
	if named != 3 { // two model requests and one batch
		t.Fatalf("log naming billing: %d of %q", named, x.log)
	}
}
