package temporal_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/temporal"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// bossModel delegates: its first answer calls the agent tool "research"
// with the prompt "add double:4" and starts the subagent "broken" on
// "explode" (whose model fails); its second lists the returns.
func bossModel() model.Model {
	return model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		if rets := msgs[len(msgs)-1].Returns(); len(rets) > 0 {
			out := make([]string, len(rets))
			for i, r := range rets {
				out[i] = describe(r)
			}
			return text(strings.Join(out, "; ")), nil
		}
		return model.CallsResponse(
			model.Call("c1", "research", map[string]string{"prompt": "add double:4"}),
			model.Call("c2", agent.SpawnToolName, map[string]string{"agent": "broken", "prompt": "explode"}),
		), nil
	})
}

// bossAgent is a parent with the agent tool "research" (the agent
// "researcher") and the subagent route "broken".
func bossAgent(t testing.TB) *temporal.Agent {
	t.Helper()
	ta, err := temporal.New(bossLocal(t), temporal.Options{HeartbeatTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ta
}

// bossLocal is bossAgent's agent.
func bossLocal(t testing.TB) *agent.Agent {
	t.Helper()
	researcher := agent.NewBuilder(scriptModel()).Name("researcher").Tool(addTool(), doubleTool()).MustBuild()
	broken := agent.NewBuilder(scriptModel()).Name("broken").MustBuild()
	research, err := agent.AsTool(researcher, agent.AsToolOptions{Name: "research", Description: "Research a question"})
	if err != nil {
		t.Fatal(err)
	}
	return agent.NewBuilder(bossModel()).Name("boss").Tool(research).
		Subagents(agent.Subagent{Agent: broken, Description: "Always fails"}).MustBuild()
}

// childHistory is the history of the workflow with id (its latest run).
func childHistory(t *testing.T, c client.Client, id string) *historypb.History {
	t.Helper()
	ctx := bounded(t, 20*time.Second)
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}

func TestAgentToolRunsAsAChildWorkflow(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("child")
	ta := bossAgent(t)
	// Registering the parent registers its children's workflows and
	// activities.
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	var res temporal.Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	// The child's answer is the call's return, the failing child an
	// error return naming it, and the usage summed, as in a local run.
	local, err := bossLocal(t).Run(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != agent.StatusCompleted || res.Output != local.Output ||
		!strings.HasPrefix(res.Output, `research="add=3; double=\"8\""; spawn_agent=error(user_error: agent "broken" failed: model`) {
		t.Fatalf("result: status %s, output %s, error %q; locally %s", res.Status, res.Output, res.Error, local.Output)
	}
	by := res.UsageByAgent
	if res.Usage != local.Usage || !reflect.DeepEqual(by, local.UsageByAgent) ||
		by["boss"].Requests != 2 || by["researcher"].Requests != 2 || by["researcher"].ToolCalls != 2 {
		t.Fatalf("usage %+v by agent %+v; locally %+v by agent %+v", res.Usage, by, local.Usage, local.UsageByAgent)
	}

	// Both calls started child workflows, and no tool activity ran in
	// the parent.
	children := map[string]string{}
	for _, e := range history(t, c, run).Events {
		if a := e.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
			children[a.GetWorkflowType().GetName()] = a.GetWorkflowId()
		}
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() != "boss.model" {
			t.Fatalf("the parent scheduled activity %s", a.GetActivityType().GetName())
		}
	}
	if len(children) != 2 || children["researcher.child"] == "" || children["broken.child"] == "" {
		t.Fatalf("child workflows: %v", children)
	}
	if id := children["researcher.child"]; !strings.HasPrefix(id, run.GetID()+"/") || !strings.HasSuffix(id, "/c1") {
		t.Fatalf("child workflow id %q", id)
	}
	// The researcher's calls ran as its own tool activities.
	got := strings.Join(toolEvents(childHistory(t, c, children["researcher.child"]), "researcher.tool"), ", ")
	if !strings.Contains(got, "scheduled add") || !strings.Contains(got, "scheduled double") || strings.Count(got, "done") != 2 {
		t.Fatalf("researcher's tool activities: %s", got)
	}

	// The same code replays the parent's history.
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(bossAgent(t).Workflow, workflow.RegisterOptions{Name: ta.WorkflowName()})
	if err := r.ReplayWorkflowHistory(silentLogger(), history(t, c, run)); err != nil {
		t.Fatalf("replay with the same code: %v", err)
	}
}

// relayModel calls the agent tool name with prompt, then answers with
// the return.
func relayModel(name, prompt string) model.Model {
	return model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		if rets := msgs[len(msgs)-1].Returns(); len(rets) > 0 {
			return text(describe(rets[0])), nil
		}
		return model.CallsResponse(model.Call("c1", name, map[string]string{"prompt": prompt})), nil
	})
}

func TestAChildsApprovalReachesItThroughTheParent(t *testing.T) {
	// The agent "deployer" deploys, which asks for approval; the lead
	// calls it as the agent tool "ops", directly or through the agent
	// "middle" (its tool "deep").
	deployer := agent.NewBuilder(scriptModel()).Name("deployer").Tool(deployTool()).MustBuild()
	ops, err := agent.AsTool(deployer, agent.AsToolOptions{Name: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	middle := agent.NewBuilder(relayModel("ops", "deploy")).Name("middle").Tool(ops).MustBuild()
	deep, err := agent.AsTool(middle, agent.AsToolOptions{Name: "deep"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, output string
		lead               *agent.Agent
	}{
		{"child", "deployer", `ops="deploy=\"deployed by ops\""`,
			agent.NewBuilder(relayModel("ops", "deploy")).Name("lead").Tool(ops).MustBuild()},
		{"grandchild", "middle/deployer", `deep="ops=\"deploy=\\\"deployed by ops\\\"\""`,
			agent.NewBuilder(relayModel("deep", "go")).Name("lead").Tool(deep).MustBuild()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t)
			queue := uniqueQueue("childwait")
			ta, err := temporal.New(tc.lead, temporal.Options{HeartbeatTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			startWorker(t, c, queue, ta, nil)
			ctx := bounded(t, 60*time.Second)
			run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			// The lead lists the request of the agent that asked, with
			// the path of agents it came through.
			pending := waitPending(t, c, run)
			if len(pending) != 1 || pending[0].ToolName != "deploy" || strings.Join(pending[0].Path, "/") != tc.path ||
				pending[0].ParentToolCallID != "c1" {
				t.Fatalf("pending: %+v", pending)
			}
			if _, err := sendUpdate(ctx, c, run, temporal.UpdateApprove, agent.ApprovalDecision{ID: "nope"}); err == nil {
				t.Fatal("an unknown id was accepted")
			}
			open, err := sendUpdate(ctx, c, run, temporal.UpdateApprove, agent.ApprovalDecision{ID: pending[0].ID, DecidedBy: "ops"})
			if err != nil || len(open) != 0 {
				t.Fatalf("approve: %v, still open %+v", err, open)
			}
			var res temporal.Result
			if err := run.Get(ctx, &res); err != nil {
				t.Fatal(err)
			}
			if res.Status != agent.StatusCompleted || res.Output != tc.output {
				t.Fatalf("result: status %s, output %s, error %q", res.Status, res.Output, res.Error)
			}
			// The same code replays the lead's history.
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(ta.Workflow, workflow.RegisterOptions{Name: ta.WorkflowName()})
			if err := r.ReplayWorkflowHistory(silentLogger(), history(t, c, run)); err != nil {
				t.Fatalf("replay with the same code: %v", err)
			}
		})
	}
}
