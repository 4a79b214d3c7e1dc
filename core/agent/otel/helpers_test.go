package otel_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The agents the tracing tests run, as core/agent's tests build them.

type addArgs struct {
	Left  int `json:"left"`
	Right int `json:"right"`
}

func addTool() *tool.Function {
	return tool.Typed("add", "Add two numbers", func(_ context.Context, _ *tool.Context, a addArgs) (tool.Result, error) {
		return tool.JSON(map[string]int{"total": a.Left + a.Right}), nil
	})
}

func calls(cs ...model.ToolCall) model.Message { return model.CallsResponse(cs...) }
func text(s string) model.Message              { return model.Response(model.TextPart(s)) }

func mustRun(t *testing.T, a *agent.Agent, prompt string, opts ...agent.RunOption) *agent.RunResult {
	t.Helper()
	res, err := a.Run(context.Background(), prompt, opts...)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// deployTool asks for approval, then deploys.
type deployTool struct {
	calls atomic.Int32
}

func (d *deployTool) tool() *tool.Function {
	return tool.New("deploy", "Deploy a release", map[string]any{
		"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}},
	}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		d.calls.Add(1)
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("deploy production", map[string]any{"risk": "high"})
		}
		return tool.JSON(map[string]any{"approved": true}), nil
	})
}

// waitingSession runs a session that calls deploy and add, and waits for
// the deploy's approval.
func waitingSession(t *testing.T, d *deployTool, extra ...model.Message) (*agent.Session, *model.TestModel) {
	t.Helper()
	responses := append([]model.Message{calls(
		model.Call("call_deploy", "deploy", map[string]string{"env": "prod"}),
		model.Call("call_add", "add", map[string]int{"left": 1, "right": 2}),
	)}, extra...)
	m := model.NewTestModel(responses...)
	s := agent.NewBuilder(m).Tool(d.tool(), addTool()).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "deploy")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	return s, m
}
