package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// dropTable is a destructive tool counting its runs.
func dropTable(runs *atomic.Int32) *tool.Function {
	return tool.New("drop_table", "Drop a table", map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
	}, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		runs.Add(1)
		return tool.Text("dropped " + string(args)), nil
	}).WithEffect(effect.ClassDestructive)
}

func destructiveRun(t *testing.T, b func(*agent.Builder) *agent.Builder) (*agent.Session, *agent.RunResult, *atomic.Int32, *model.TestModel) {
	t.Helper()
	runs := &atomic.Int32{}
	m := model.NewTestModel(calls(model.Call("c1", "drop_table", map[string]string{"name": "users"})), text("done"))
	s := b(agent.NewBuilder(m).Tool(dropTable(runs))).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "drop users")
	if err != nil {
		t.Fatal(err)
	}
	return s, res, runs, m
}

// A destructive call waits for approval by default, and runs once approved.
func TestDestructiveWaitsForApprovalByDefault(t *testing.T) {
	s, res, runs, _ := destructiveRun(t, func(b *agent.Builder) *agent.Builder { return b })
	if res.Status != agent.StatusWaiting || runs.Load() != 0 {
		t.Fatalf("status %s runs %d", res.Status, runs.Load())
	}
	p := s.Pending()
	if len(p) != 1 || p[0].ToolName != "drop_table" || p[0].Metadata[tool.MetaDestructivePolicy] != "approve" {
		t.Fatalf("pending %+v", p)
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p[0].ID, Approved: true}}})
	if err != nil || res.Status != agent.StatusCompleted || runs.Load() != 1 {
		t.Fatalf("resume: %v %v runs %d", res, err, runs.Load())
	}
}

// A denied approval never runs the call.
func TestDestructiveApprovalDenied(t *testing.T) {
	s, _, runs, m := destructiveRun(t, func(b *agent.Builder) *agent.Builder { return b })
	p := s.Pending()
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p[0].ID, Approved: false}}})
	if err != nil || res.Status != agent.StatusCompleted || runs.Load() != 0 {
		t.Fatalf("resume: %v %v runs %d", res, err, runs.Load())
	}
	ret := lastReturn(t, lastRequest(m), "c1")
	if got := ret.ErrorKind(); got != tool.ErrorKindApprovalDenied {
		t.Fatalf("kind %q", got)
	}
}

func TestDestructiveAllowRuns(t *testing.T) {
	_, res, runs, _ := destructiveRun(t, func(b *agent.Builder) *agent.Builder {
		return b.DestructivePolicy(tool.DestructiveAllow, nil)
	})
	if res.Status != agent.StatusCompleted || runs.Load() != 1 {
		t.Fatalf("status %s runs %d", res.Status, runs.Load())
	}
}

// Deny gives the model a refusal it reads, and the run goes on.
func TestDestructiveDenyRefuses(t *testing.T) {
	_, res, runs, m := destructiveRun(t, func(b *agent.Builder) *agent.Builder {
		return b.DestructivePolicy(tool.DestructiveDeny, nil)
	})
	if res.Status != agent.StatusCompleted || res.Output != "done" || runs.Load() != 0 {
		t.Fatalf("status %s output %q runs %d", res.Status, res.Output, runs.Load())
	}
	ret := lastReturn(t, lastRequest(m), "c1")
	if ret.ErrorKind() != tool.ErrorKindApprovalDenied || ret.Metadata[tool.MetaMessage] != tool.DestructiveDeniedReason {
		t.Fatalf("return %+v", ret)
	}
}

// A decider decides per call; "" falls back to the policy.
func TestDestructiveDecider(t *testing.T) {
	var seen atomic.Int32
	_, res, runs, _ := destructiveRun(t, func(b *agent.Builder) *agent.Builder {
		return b.DestructivePolicy(tool.DestructiveDeny, func(_ context.Context, tc *tool.Context, call tool.Call) tool.DestructivePolicy {
			seen.Add(1)
			if call.Name == "drop_table" && tc.ToolCallID == "c1" {
				return tool.DestructiveAllow
			}
			return ""
		})
	})
	if res.Status != agent.StatusCompleted || runs.Load() != 1 || seen.Load() != 1 {
		t.Fatalf("status %s runs %d seen %d", res.Status, runs.Load(), seen.Load())
	}
}

// Tools that are not destructive are untouched, and an unknown policy is
// a configuration error.
func TestDestructivePolicyScopeAndCheck(t *testing.T) {
	runs := &atomic.Int32{}
	m := model.NewTestModel(calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2})), text("3"))
	res, err := agent.NewBuilder(m).Tool(addTool(), dropTable(runs)).MustBuild().Run(context.Background(), "add")
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("run: %v %v", res, err)
	}
	_, err = agent.NewBuilder(m).DestructivePolicy("sometimes", nil).Build()
	if !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err %v", err)
	}
	_, err = agent.New(m, agent.Options{DestructivePolicy: "never"})
	if !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err %v", err)
	}
}

// lastRequest is the messages of the model's last request.
func lastRequest(m *model.TestModel) []model.Message {
	reqs := m.Requests()
	return reqs[len(reqs)-1].Messages
}
