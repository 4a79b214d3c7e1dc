package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func spawnCall(id, name, prompt string) model.ToolCall {
	return model.Call(id, agent.SpawnToolName, map[string]string{"agent": name, "prompt": prompt})
}

// Two spawns in one response run at the same time (each child waits,
// bounded, until both have started) and both answers reach the parent.
func TestSpawnRunsChildrenConcurrently(t *testing.T) {
	var started atomic.Int32
	both := make(chan struct{})
	child := func(name string) *agent.Agent {
		return agent.NewBuilder(model.NewFunctionModel(func(ctx context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
			if started.Add(1) == 2 {
				close(both)
			}
			select {
			case <-both:
			case <-time.After(10 * time.Second):
				return model.Message{}, errors.New("the other child never started")
			case <-ctx.Done():
				return model.Message{}, ctx.Err()
			}
			return text(name + " read " + msgs[len(msgs)-1].Parts[0].Content[0].Text), nil
		})).Name(name).MustBuild()
	}
	parent := agent.NewBuilder(model.NewTestModel(
		calls(spawnCall("s1", "left", "a"), spawnCall("s2", "right", "b")), text("done"))).
		Subagents(agent.Subagent{Agent: child("left"), Description: "Reads the left."}, agent.Subagent{Agent: child("right")}).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("run: %+v %v", res, err)
	}
	got := map[string]string{}
	for _, r := range res.Returns() {
		got[r.ToolCallID] = returnText(r.Content)
	}
	if got["s1"] != "left read a" || got["s2"] != "right read b" {
		t.Fatalf("returns %v", got)
	}
	if res.UsageByAgent["left"].Requests != 1 || res.UsageByAgent["right"].Requests != 1 {
		t.Fatalf("usage by agent %+v", res.UsageByAgent)
	}
}

// SpawnConcurrency caps the spawns running at once.
func TestSpawnConcurrencyCap(t *testing.T) {
	var active, peak atomic.Int32
	worker := agent.NewBuilder(model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		n := active.Add(1)
		defer active.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		return text("ok"), nil
	})).Name("worker").MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(
		calls(spawnCall("a", "worker", "1"), spawnCall("b", "worker", "2"), spawnCall("c", "worker", "3")), text("done"))).
		Subagents(agent.Subagent{Agent: worker}).SpawnConcurrency(1).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusCompleted || peak.Load() != 1 || res.UsageByAgent["worker"].Requests != 3 {
		t.Fatalf("run: %+v %v (peak %d)", res, err, peak.Load())
	}
}

// A name that is no route is the model's to correct; the schema lists the
// routes.
func TestSpawnUnknownAgent(t *testing.T) {
	worker := agent.NewBuilder(model.NewTestModel(text("ok"))).Name("worker").MustBuild()
	var offered []tool.Definition
	m := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, p model.Params) (model.Message, error) {
		if len(msgs[len(msgs)-1].Returns()) > 0 {
			return text("done"), nil
		}
		offered = p.Tools
		return calls(spawnCall("a", "ghost", "x")), nil
	})
	parent := agent.NewBuilder(m).Subagents(agent.Subagent{Agent: worker}).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	ret := res.Returns()[0]
	if !ret.IsError || ret.ErrorKind() != tool.ErrorKindInvalidArguments && ret.ErrorKind() != tool.ErrorKindModelRetry {
		t.Fatalf("return %+v", ret)
	}
	i := slices.IndexFunc(offered, func(d tool.Definition) bool { return d.Name == agent.SpawnToolName })
	if i < 0 {
		t.Fatalf("no spawn_agent among %v", offered)
	}
	var schema struct {
		Properties struct {
			Agent struct {
				Enum []string `json:"enum"`
			} `json:"agent"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(offered[i].Parameters)
	if err := json.Unmarshal(b, &schema); err != nil || !slices.Equal(schema.Properties.Agent.Enum, []string{"worker"}) {
		t.Fatalf("schema %s", b)
	}
}

// Route names are unique and no tool may share one; a grant a subagent
// lacks is refused when the parent is built.
func TestSubagentCollisionsAreBuildErrors(t *testing.T) {
	worker := agent.NewBuilder(model.NewTestModel(text("ok"))).Name("worker").
		Tool(tool.New("read", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) { return tool.Text("r"), nil })).MustBuild()
	same := tool.New("worker", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) { return tool.Text(""), nil })
	spawn := tool.New(agent.SpawnToolName, "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) { return tool.Text(""), nil })
	for name, b := range map[string]*agent.Builder{
		"tool named like a route": agent.NewBuilder(model.NewTestModel()).Tool(same).Subagents(agent.Subagent{Agent: worker}),
		"two routes of one name":  agent.NewBuilder(model.NewTestModel()).Subagents(agent.Subagent{Agent: worker}, agent.Subagent{Name: "worker", Agent: worker}),
		"a tool named spawn":      agent.NewBuilder(model.NewTestModel()).Tool(spawn).Subagents(agent.Subagent{Agent: worker}),
		"a grant of no tool":      agent.NewBuilder(model.NewTestModel()).Subagents(agent.Subagent{Agent: worker, Grants: []string{"write"}}),
		"a route without agent":   agent.NewBuilder(model.NewTestModel()).Subagents(agent.Subagent{Name: "x"}),
	} {
		if _, err := b.Build(); !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A route's grants are all its runs may call: a tool of the subagent it
// does not grant is never run.
func TestSubagentGrantsNarrow(t *testing.T) {
	var wrote atomic.Int32
	write := tool.New("write", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		wrote.Add(1)
		return tool.Text("written"), nil
	})
	read := tool.New("read", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) { return tool.Text("r"), nil })
	worker := agent.NewBuilder(model.NewTestModel(calls(model.Call("w", "write", nil)), text("tried"))).Name("worker").Tool(read, write).MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(calls(spawnCall("a", "worker", "x")), text("done"))).
		Subagents(agent.Subagent{Agent: worker, Grants: []string{"read"}}).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusCompleted || wrote.Load() != 0 {
		t.Fatalf("run: %+v %v (write ran %d times)", res, err, wrote.Load())
	}
}

// A spawned child that waits for approval makes the parent wait, with the
// route's name as the path.
func TestSpawnedChildWaits(t *testing.T) {
	var ran atomic.Int32
	parent := agent.NewBuilder(relayModelFor("s1", agent.SpawnToolName, map[string]string{"agent": "cashier", "prompt": "pay"})).
		Subagents(agent.Subagent{Agent: cashier(&ran)}).MustBuild()
	s := parent.NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting || len(res.Pending) != 1 || !slices.Equal(res.Pending[0].Path, []string{"cashier"}) {
		t.Fatalf("run: %+v %v", res, err)
	}
	res, err = s.Resume(context.Background(), approveIDs(res.Pending[0].ID))
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "relayed: cashier: paid" || ran.Load() != 1 {
		t.Fatalf("resume: %+v %v", res, err)
	}
}
