package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// ChildRun is a call of an agent tool (AsTool) or of spawn_agent, as the
// run that made it describes it to its Executor (Call.Child): an engine
// that can run agents itself (core/temporal runs it as a child workflow)
// runs Agent's agent on Prompt with Grants and Limits, and answers the
// call with ChildReturn; any other executor runs the call as it runs
// every call, which runs the child inside it.
type ChildRun struct {
	// Agent is the child agent's label: its name, or the tool's (route's)
	// name when it has none. Usage and paths name it.
	Agent string `json:"agent"`
	// Prompt is the task the call gives the child.
	Prompt string `json:"prompt"`
	// Grants, when not nil, are the only tools the child's run may call
	// (AsToolOptions.Grants).
	Grants []string `json:"grants,omitempty"`
	// Limits are the child run's usage limits: its own, narrowed to what
	// the parent's run had left when the batch began (see AsTool).
	Limits UsageLimits `json:"limits"`
}

// ChildAgent is an agent a run may start as a child, under the label its
// ChildRun names.
type ChildAgent struct {
	Label string
	Agent *Agent
}

// ChildAgents lists the agents a run of a may start through its agent
// tools and subagent routes (spawn_agent), those of the agents its
// handoffs reach included, in a stable order, one entry per label (the
// first found). It does not descend into the children: a caller that
// needs the whole tree asks each child in turn. Agent tools served by
// toolsets are not listed.
func (a *Agent) ChildAgents() []ChildAgent {
	var out []ChildAgent
	seen := map[string]bool{}
	add := func(t *agentTool) {
		if !seen[t.label] {
			seen[t.label] = true
			out = append(out, ChildAgent{Label: t.label, Agent: t.child})
		}
	}
	visited := map[*Agent]bool{a: true}
	queue := []*Agent{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, t := range x.tools {
			switch c := t.(type) {
			case *agentToolFunc:
				add(c.at)
			case *spawnToolFunc:
				for _, name := range c.st.names {
					add(c.st.routes[name])
				}
			}
		}
		for _, h := range x.handoffs {
			to, err := h.target()
			if err != nil || visited[to] {
				continue
			}
			visited[to] = true
			queue = append(queue, to)
		}
	}
	return out
}

// ChildReturn is the return of call c, whose child run (see ChildRun,
// labelled label) ended with res and err, as the agent tool would have
// returned it: the child's output text, or its structured value; a
// failed run, or err, an error return naming the child. A child that
// waits for people cannot wait with a run driven by an executor: its
// call gets an error return. ctx is the context the run passed its
// Executor: the child's usage is added to that run's (its usage and
// UsageByAgent). res may have crossed a process without its error: a
// failed run's Error stands for the error its run returned.
func ChildReturn(ctx context.Context, c tool.Call, label string, res *RunResult, err error) tool.Return {
	if parent := parentRun(ctx); parent != nil && res != nil {
		parent.addChildUsage(res.Usage, byAgentSince(label, res, nil))
	}
	if err == nil && res != nil && res.Status == StatusFailed && res.Error != "" {
		err = errors.New(res.Error)
	}
	t := &agentTool{label: label}
	out, rerr := t.outcome(ctx, nil, "", nil, res, err)
	if rerr != nil {
		return tool.ErrorReturn(c, rerr)
	}
	return tool.SuccessReturn(c, out)
}

// outcome turns a child run's end into the call's result (see
// agentTool.call); parent and callID are the run a waiting child waits
// with (nil, "": none).
func (t *agentTool) outcome(ctx context.Context, parent *runner, callID string, sess *Session, res *RunResult, err error) (tool.Result, error) {
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return tool.Result{}, tool.Cancelled(fmt.Sprintf("agent %q was cancelled", t.label))
		}
		return tool.Result{}, tool.UserError("agent %q failed: %s", t.label, err.Error())
	}
	switch res.Status {
	case StatusCompleted:
	case StatusWaiting:
		return t.wait(parent, callID, sess, res)
	default:
		return tool.Result{}, tool.UserError("agent %q ended %s: %s", t.label, res.Status, res.Error)
	}
	if len(res.OutputValue) > 0 {
		return tool.JSON(res.OutputValue), nil
	}
	return tool.Text(res.Output), nil
}

// childRunner is a tool whose calls start a child agent's run.
type childRunner interface {
	childOf(args json.RawMessage) (t *agentTool, prompt string, ok bool)
}

// agentToolFunc is the tool AsTool makes: a function tool that says which
// agent its calls run (see ChildRun).
type agentToolFunc struct {
	*tool.Function
	at *agentTool
}

func (f *agentToolFunc) childOf(args json.RawMessage) (*agentTool, string, bool) {
	var in struct {
		Prompt *string `json:"prompt"`
	}
	if json.Unmarshal(args, &in) != nil || in.Prompt == nil {
		return nil, "", false
	}
	return f.at, *in.Prompt, true
}

// spawnToolFunc is the spawn_agent tool.
type spawnToolFunc struct {
	*tool.Function
	st *spawnTool
}

func (f *spawnToolFunc) childOf(args json.RawMessage) (*agentTool, string, bool) {
	var in struct {
		Agent  string  `json:"agent"`
		Prompt *string `json:"prompt"`
	}
	if json.Unmarshal(args, &in) != nil || in.Prompt == nil {
		return nil, "", false
	}
	t, ok := f.st.routes[in.Agent]
	if !ok {
		return nil, "", false
	}
	return t, *in.Prompt, true
}

// childRunOf describes call c of reg as a child run for the run's
// executor, or returns nil: for a call of another tool, one whose
// arguments the tool would refuse (it runs as any call does, and the
// tool says why), one wrapped by something that must run around it
// (hooks, an approval rule, a concurrency cap across runs), or when the
// run has nothing left of a limit (the tool refuses that call itself).
func (r *runner) childRunOf(reg *tool.Registry, c tool.Call) *ChildRun {
	if len(r.a.hooks) > 0 {
		return nil
	}
	t, ok := reg.Tool(c.Name)
	if !ok {
		return nil
	}
	cr, ok := t.(childRunner)
	if !ok {
		return nil
	}
	if cfg, ok := t.(interface{ ToolConfig() *tool.Config }); ok && cfg.ToolConfig().Concurrency != nil {
		// A cap across the agent's runs (SpawnConcurrency) holds only
		// where the calls run on this process's registry.
		return nil
	}
	at, prompt, ok := cr.childOf(c.Arguments)
	if !ok {
		return nil
	}
	limits, spent := r.childLimits(at.child.limits, model.Usage{})
	if spent != "" {
		return nil
	}
	return &ChildRun{Agent: at.label, Prompt: prompt, Grants: at.grants, Limits: limits}
}
