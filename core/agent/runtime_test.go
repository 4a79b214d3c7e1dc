package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A run's tools see its limits in their runtime snapshot: the agent's,
// with the run's over them, the request limit effective.
func TestToolsSeeTheRunsLimits(t *testing.T) {
	var got []tool.RunLimits
	probe := tool.New("probe", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		got = append(got, tc.Runtime.Limits)
		return tool.Text("ok"), nil
	})
	m := model.NewTestModel(calls(model.Call("1", "probe", nil)), text("done"), calls(model.Call("2", "probe", nil)), text("done"))
	a := agent.NewBuilder(m).Tool(probe).UsageLimits(agent.UsageLimits{ToolCallsLimit: 9}).MustBuild()
	s := a.NewSession()
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "go", agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 4, TotalTokensLimit: 100})); err != nil {
		t.Fatal(err)
	}
	want := []tool.RunLimits{
		{RequestLimit: agent.DefaultRequestLimit, ToolCallsLimit: 9},
		{RequestLimit: 4, ToolCallsLimit: 9, TotalTokensLimit: 100},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("limits seen %+v, want %+v", got, want)
	}
}
