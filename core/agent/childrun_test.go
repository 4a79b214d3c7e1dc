package agent_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// childExecutor runs the children of a run itself, as a durable engine
// does (core/temporal: as child workflows): a call with a Child runs that
// agent and is answered by ChildReturn; any other call runs on worker.
type childExecutor struct {
	worker   *agent.Agent
	children map[string]*agent.Agent
	mu       sync.Mutex
	seen     []agent.ChildRun
}

func (x *childExecutor) RequestModel(ctx context.Context, req agent.ModelRequest) (model.Message, error) {
	return x.worker.RequestModel(ctx, req)
}

func (x *childExecutor) RunBatch(ctx context.Context, b agent.Batch) ([]tool.Return, error) {
	out := make([]tool.Return, len(b.Calls))
	for i, c := range b.Calls {
		if c.Child == nil {
			one := b
			one.Calls = []agent.Call{c}
			rets, err := x.worker.RunBatch(ctx, one, nil)
			if err != nil {
				return nil, err
			}
			out[i] = rets[0]
			continue
		}
		x.mu.Lock()
		x.seen = append(x.seen, *c.Child)
		x.mu.Unlock()
		opts := []agent.RunOption{agent.WithUsageLimits(c.Child.Limits)}
		if c.Child.Grants != nil {
			opts = append(opts, agent.WithGrants(c.Child.Grants...))
		}
		res, err := x.children[c.Child.Agent].Run(context.Background(), c.Child.Prompt, opts...)
		out[i] = agent.ChildReturn(ctx, c.Call, c.Child.Agent, res, err)
	}
	return out, nil
}

// delegating builds a parent whose model calls the agent tool "research"
// (the agent "researcher", granted add only) and then answers with the
// return, and the researcher, which adds and answers.
func delegating(hooks ...tool.Hook) (parent, researcher *agent.Agent) {
	researcher = agent.NewBuilder(model.NewTestModel(
		calls(model.Call("r1", "add", map[string]int{"left": 2, "right": 3})),
		text("five"),
	)).Name("researcher").Tool(addTool()).MustBuild()
	research, err := agent.AsTool(researcher, agent.AsToolOptions{Name: "research", Grants: []string{"add"}})
	if err != nil {
		panic(err)
	}
	b := agent.NewBuilder(model.NewTestModel(
		calls(model.Call("c1", "research", map[string]string{"prompt": "2+3?"})),
		text("done"),
	)).Name("boss").Tool(research)
	for _, h := range hooks {
		b.Hook(h)
	}
	return b.MustBuild(), researcher
}

func TestAnExecutorRunsAChildAsLocally(t *testing.T) {
	limits := agent.UsageLimits{RequestLimit: 5}
	parent, _ := delegating()
	local, err := parent.Run(context.Background(), "go", agent.WithUsageLimits(limits))
	if err != nil {
		t.Fatal(err)
	}

	parent, researcher := delegating()
	if got := parent.ChildAgents(); len(got) != 1 || got[0].Label != "researcher" || got[0].Agent != researcher {
		t.Fatalf("child agents: %+v", got)
	}
	x := &childExecutor{worker: parent, children: map[string]*agent.Agent{"researcher": researcher}}
	res, err := parent.Run(context.Background(), "go", agent.WithUsageLimits(limits), agent.WithExecutor(x))
	if err != nil {
		t.Fatal(err)
	}
	// The call was handed over as the child's run: its prompt, its grants,
	// and the parent's remaining requests (5 less the one made).
	if len(x.seen) != 1 || x.seen[0].Agent != "researcher" || x.seen[0].Prompt != "2+3?" ||
		!reflect.DeepEqual(x.seen[0].Grants, []string{"add"}) || x.seen[0].Limits.RequestLimit != 4 {
		t.Fatalf("child runs: %+v", x.seen)
	}
	// The return, the output and the usage are the local run's.
	if res.Output != local.Output || res.Usage != local.Usage || !reflect.DeepEqual(res.UsageByAgent, local.UsageByAgent) {
		t.Fatalf("executor run: %q %+v %+v; local: %q %+v %+v", res.Output, res.Usage, res.UsageByAgent,
			local.Output, local.Usage, local.UsageByAgent)
	}
	got, want := res.Messages[len(res.Messages)-2].Returns(), local.Messages[len(local.Messages)-2].Returns()
	if len(got) != 1 || len(want) != 1 || describeReturn(got[0]) != describeReturn(want[0]) || res.UsageByAgent["researcher"].Requests != 2 {
		t.Fatalf("returns %+v, locally %+v; usage by agent %+v", got, want, res.UsageByAgent)
	}
}

func describeReturn(r tool.Return) string {
	b, _ := json.Marshal(r.Content)
	return r.Name + "=" + string(b)
}

func TestAChildWrappedByHooksRunsAsAnyCall(t *testing.T) {
	hook := tool.Hook{Name: "audit", Before: func(context.Context, *tool.Context, map[string]any) error { return nil }}
	parent, researcher := delegating(hook)
	x := &childExecutor{worker: parent, children: map[string]*agent.Agent{"researcher": researcher}}
	res, err := parent.Run(context.Background(), "go", agent.WithExecutor(x))
	if err != nil {
		t.Fatal(err)
	}
	if len(x.seen) != 0 || res.Output != "done" {
		t.Fatalf("a hooked agent tool was handed over as a child run: %+v (output %q)", x.seen, res.Output)
	}
}

func TestChildReturnOfAFailedOrWaitingChild(t *testing.T) {
	c := tool.Call{ID: "c1", Name: "research"}
	failed := agent.ChildReturn(context.Background(), c, "researcher", &agent.RunResult{Status: agent.StatusFailed, Error: "boom"}, nil)
	waiting := agent.ChildReturn(context.Background(), c, "researcher", &agent.RunResult{Status: agent.StatusWaiting,
		Pending: []agent.Pending{{Kind: agent.PendingApproval}}}, nil)
	for _, r := range []tool.Return{failed, waiting} {
		if !r.IsError || r.ToolCallID != "c1" {
			t.Fatalf("return %+v", r)
		}
	}
	if m, _ := failed.Metadata[tool.MetaMessage].(string); m != `agent "researcher" failed: boom` {
		t.Fatalf("failed child: %q", m)
	}
}

func TestCappedSpawnCallsRunAsAnyCall(t *testing.T) {
	for _, capped := range []bool{false, true} {
		worker := agent.NewBuilder(model.NewTestModel(text("ok"))).Name("worker").MustBuild()
		m := model.NewTestModel(calls(model.Call("c1", agent.SpawnToolName, map[string]string{"agent": "worker", "prompt": "go"})), text("done"))
		b := agent.NewBuilder(m).Name("boss").Subagents(agent.Subagent{Agent: worker})
		if capped {
			b.SpawnConcurrency(1)
		}
		parent := b.MustBuild()
		x := &childExecutor{worker: parent, children: map[string]*agent.Agent{"worker": worker}}
		if _, err := parent.Run(context.Background(), "go", agent.WithExecutor(x)); err != nil {
			t.Fatal(err)
		}
		if handed := len(x.seen) == 1; handed == capped {
			t.Fatalf("capped %v: child runs handed over %+v", capped, x.seen)
		}
	}
}
