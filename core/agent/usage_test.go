package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func withUsage(m model.Message, u model.Usage) model.Message {
	m.Usage = &u
	return m
}

func TestUsageSumsResponsesAndToolCalls(t *testing.T) {
	m := model.NewTestModel(
		withUsage(calls(model.Call("c1", "add", addArgs{1, 2}), model.Call("c2", "add", addArgs{3, 4})),
			model.Usage{Requests: 1, InputTokens: 100, OutputTokens: 20, CacheReadTokens: 60, ReasoningTokens: 5}),
		withUsage(text("done"), model.Usage{Requests: 1, InputTokens: 150, OutputTokens: 10, CacheWriteTokens: 30, ReasoningTokens: 2}))
	var responses []*model.Usage
	res := mustRun(t, agent.NewBuilder(m).Tool(addTool()).MustBuild(), "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventModelResponse {
			responses = append(responses, ev.Usage)
		}
	}))
	want := model.Usage{Requests: 2, InputTokens: 250, OutputTokens: 30, ToolCalls: 2, CacheReadTokens: 60, CacheWriteTokens: 30, ReasoningTokens: 7}
	if res.Usage != want {
		t.Fatalf("usage %+v", res.Usage)
	}
	if len(responses) != 2 || responses[0].InputTokens != 100 || responses[1].CacheWriteTokens != 30 {
		t.Fatalf("model_response usage %+v", responses)
	}
}

func TestSessionUsageSumsItsRuns(t *testing.T) {
	m := model.NewTestModel(
		withUsage(text("a"), model.Usage{Requests: 1, InputTokens: 10, OutputTokens: 1}),
		withUsage(text("b"), model.Usage{Requests: 1, InputTokens: 20, OutputTokens: 2}),
		withUsage(text("c"), model.Usage{Requests: 1, InputTokens: 40, OutputTokens: 4}))
	s := agent.NewBuilder(m).MustBuild().NewSession()
	for _, p := range []string{"1", "2"} {
		if _, err := s.Run(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if u := s.Usage(); u != (model.Usage{Requests: 2, InputTokens: 30, OutputTokens: 3}) {
		t.Fatalf("session usage %+v", u)
	}
	// A failed run's consumption counts too.
	_, err := s.Run(context.Background(), "3", agent.WithUsageLimits(agent.UsageLimits{InputTokensLimit: 5}))
	if !errors.Is(err, agent.ErrUsageLimitExceeded) {
		t.Fatalf("err %v", err)
	}
	if u := s.Usage(); u.Requests != 3 || u.InputTokens != 70 {
		t.Fatalf("session usage %+v", u)
	}
}

func TestSessionUsageCountsAResumedRunOnce(t *testing.T) {
	gated := toolset.ApprovalRequired(toolset.New("t", addTool()), "add")
	m := model.NewTestModel(
		withUsage(calls(model.Call("c1", "add", addArgs{1, 2})), model.Usage{Requests: 1, InputTokens: 10}),
		withUsage(text("3"), model.Usage{Requests: 1, InputTokens: 20}))
	s := agent.NewBuilder(m).Toolset(gated).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("%v %v", res.Status, err)
	}
	res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c1", Approved: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.InputTokens != 30 || res.Usage.ToolCalls != 1 {
		t.Fatalf("run usage %+v", res.Usage)
	}
	if u := s.Usage(); u.Requests != 2 || u.InputTokens != 30 || u.ToolCalls != 1 {
		t.Fatalf("session usage %+v", u)
	}
}
