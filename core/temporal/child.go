package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/tool"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// ChildInput is the input of the child workflow (ChildWorkflowName): the
// run an agent tool's call or a spawn_agent call asks of the child agent
// (agent.ChildRun).
type ChildInput struct {
	Prompt string `json:"prompt"`
	// Grants, when not nil, are the only tools the run may call.
	Grants []string `json:"grants,omitempty"`
	// Limits are the run's usage limits (the parent's remaining budget
	// included).
	Limits agent.UsageLimits `json:"limits"`
	// CallID is the parent's call that runs the child: the pending items
	// the parent lists for the child name it (ParentToolCallID).
	CallID string `json:"call_id,omitempty"`
}

// ChildWorkflowName is the name Register gives ChildWorkflow:
// "<name>.child".
func (t *Agent) ChildWorkflowName() string { return t.o.Name + ".child" }

// ChildWorkflow is the workflow of a child run: a parent run inside a
// workflow starts it for each call of an agent tool (agent.AsTool) or
// of spawn_agent, named by the child agent's label, with an id made of
// the parent run's name (its workflow id and recorded suffix), the step
// and the call id. It runs the agent, its model requests and calls as
// activities like any run here, and returns the Result whatever the
// run's status: the parent turns it into the call's return
// (agent.ChildReturn), a failed run into an error return.
//
// While the run waits for people, the child workflow waits as the
// ready-made workflow does, for the same updates and query, and tells its
// parent workflow what it waits for: the parent's pending query lists the
// child's items (Path starting with the child's label, ParentToolCallID
// the parent's call), and an answer sent to the parent's ready-made
// workflow (or to a child workflow on the way) reaches the child, however
// deep.
func (t *Agent) ChildWorkflow(ctx workflow.Context, in ChildInput) (*Result, error) {
	w := &answers{label: t.o.Name, callID: in.CallID}
	if err := w.register(ctx); err != nil {
		return nil, err
	}
	opts := []RunOption{WithUsageLimits(in.Limits)}
	if in.Grants != nil {
		opts = append(opts, withGrants(in.Grants))
	}
	res, err := t.Run(ctx, in.Prompt, opts...)
	for err == nil && res.Status == agent.StatusWaiting {
		w.wait(res.Pending)
		w.publish(ctx)
		if err := workflow.Await(ctx, w.complete); err != nil {
			return nil, err
		}
		next, rerr := t.Resume(ctx, res, w.resolution(), opts...)
		if next == nil && errors.Is(rerr, agent.ErrState) {
			workflow.GetLogger(ctx).Warn("starweaver: the answers were refused; waiting for new ones", "error", rerr)
			continue
		}
		w.wait(nil)
		w.publish(ctx)
		res, err = next, rerr
	}
	if res == nil {
		return nil, err
	}
	res.State = nil
	return res, nil
}

// childWorkflowID is the id of the child workflow of call c of batch b:
// the same whenever the parent's workflow replays or runs the batch
// again, and unique in the parent (a model may reuse call ids across
// steps).
func childWorkflowID(b agent.Batch, c agent.Call) string {
	return fmt.Sprintf("%s/%d/%s", strings.TrimPrefix(b.RunID, "run_"), b.Step, c.ID)
}

// startChild starts the child workflow of call c of batch b.
func (x *executor) startChild(b agent.Batch, c agent.Call) workflow.Future {
	ctx := workflow.WithChildOptions(x.ctx, workflow.ChildWorkflowOptions{
		WorkflowID:    childWorkflowID(b, c),
		StaticSummary: fmt.Sprintf("agent %s, call %s", c.Child.Agent, c.ID),
	})
	in := ChildInput{Prompt: c.Child.Prompt, Grants: c.Child.Grants, Limits: c.Child.Limits, CallID: c.ID}
	return workflow.ExecuteChildWorkflow(ctx, c.Child.Agent+".child", in)
}

// childReturn is the return of call c, whose child workflow's future is
// f; ctx is the one the run passed the executor (it carries the run
// the child's usage is added to).
func (x *executor) childReturn(ctx context.Context, f workflow.Future, c agent.Call) tool.Return {
	var res Result
	if err := f.Get(x.ctx, &res); err != nil {
		workflow.GetLogger(x.ctx).Warn("starweaver: a child agent's workflow failed; the model gets an error return",
			"agent", c.Child.Agent, "call", c.ID, "error", err)
		return agent.ChildReturn(ctx, c.Call, c.Child.Agent, nil, err)
	}
	return agent.ChildReturn(ctx, c.Call, c.Child.Agent, &res.RunResult, nil)
}

// registerTree registers the child workflow and the activities of t and
// of every agent its runs may start as children (agent.ChildAgents, all
// the way down), each under its label, with t's other options. Names
// registered already (an agent reached twice, or registered on its own
// too) are registered again, over the first.
func (t *Agent) registerTree(w worker.Registry) {
	seen := map[string]bool{t.o.Name: true}
	queue := []*Agent{t}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		x.registerRuns(w)
		for _, c := range x.a.ChildAgents() {
			if seen[c.Label] {
				continue
			}
			seen[c.Label] = true
			o := t.o
			o.Name = c.Label
			queue = append(queue, &Agent{a: c.Agent, o: o})
		}
	}
}

// registerRuns registers t's child workflow and activities.
func (t *Agent) registerRuns(w worker.Registry) {
	w.RegisterWorkflowWithOptions(t.ChildWorkflow, workflow.RegisterOptions{Name: t.ChildWorkflowName(), DisableAlreadyRegisteredCheck: true})
	w.RegisterActivityWithOptions(t.requestModel, activity.RegisterOptions{Name: t.ModelActivityName(), DisableAlreadyRegisteredCheck: true})
	w.RegisterActivityWithOptions(t.runCall, activity.RegisterOptions{Name: t.ToolActivityName(), DisableAlreadyRegisteredCheck: true})
}
