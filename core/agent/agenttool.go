package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// AsToolOptions configures the tool AsTool makes of an agent.
type AsToolOptions struct {
	// Name is the tool's name; "" uses the child agent's name.
	Name string
	// Description tells the parent's model what the child is for.
	Description string
	// Grants, when not nil, are the only tools the child's runs may call
	// (see WithGrants); nil lets the child call all of its tools.
	Grants []string
	// MaxRetries, when set, overrides the tool's correction budget in the
	// parent's run.
	MaxRetries *int
}

// agentToolSchema is the arguments of an agent tool: the prompt the child
// runs with.
func agentToolSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"prompt": map[string]any{"type": "string", "description": "The task for the agent, in full: it sees nothing else of this conversation."},
		},
		"required":             []any{"prompt"},
		"additionalProperties": false,
	}
}

// AsTool makes child callable as a tool of another agent (the parent).
// A call runs child in a fresh session with the call's prompt and the
// call's context, so cancelling the parent's run cancels the child's. It
// returns the child's output text, or its structured output (a JSON
// value) when the child has an output type.
//
// The child's usage (requests, tokens, tool calls) is added to the
// parent run's usage. The child's events reach the parent run's event
// handlers with AgentName set to the child's name (nothing is forwarded
// when the parent has none). For each usage limit the parent's run sets,
// the child's run gets the smaller of its own limit and what the parent
// had left when the batch began (a parent with nothing left of one gets
// an error return instead of running the child); the parent's own request
// limit still counts its own requests only.
//
// A child run that fails gives the parent's model an error return naming
// the child. Children that wait for people (approvals, deferred calls)
// are not supported yet: such a child run gives an error return too, and
// its pending calls are dropped.
//
// A grant naming a tool the child does not register is an error here
// (for tools of the child's toolsets it is checked when a child run
// starts, and reported to the parent's model as a failure).
func AsTool(child *Agent, opts AsToolOptions) (tool.Tool, error) {
	if child == nil {
		return nil, fmt.Errorf("%w: AsTool needs an agent", ErrConfig)
	}
	name := opts.Name
	if name == "" {
		name = child.Name()
	}
	if name == "" {
		return nil, fmt.Errorf("%w: an agent tool needs a name (the agent has none)", ErrConfig)
	}
	if opts.Grants != nil {
		if err := child.checkGrants(opts.Grants); err != nil {
			return nil, fmt.Errorf("%w: agent tool %q: %w", ErrConfig, name, err)
		}
	}
	label := child.Name()
	if label == "" {
		label = name
	}
	at := &agentTool{child: child, label: label, grants: opts.Grants}
	f := tool.New(name, opts.Description, agentToolSchema(), at.call)
	if opts.MaxRetries != nil {
		n := *opts.MaxRetries
		f.ToolConfig().MaxRetries = &n
	}
	if err := f.Err(); err != nil {
		return nil, fmt.Errorf("agent tool %q: %w", name, err)
	}
	return f, nil
}

// checkGrants reports the grants that name none of the agent's own tools.
// An agent with toolsets is left to its runs: their tools are only known
// once a run enters them.
func (a *Agent) checkGrants(grants []string) error {
	if len(a.toolsets) > 0 {
		return nil
	}
	reg := a.base
	if reg == nil {
		var err error
		if reg, err = a.baseRegistry(nil); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(grants))
	for _, g := range grants {
		if g != ReadArtifactToolName {
			names = append(names, g)
		}
	}
	if _, err := reg.Grant(names...); err != nil {
		return err
	}
	return nil
}

// agentTool is the handler of a tool made by AsTool.
type agentTool struct {
	child  *Agent
	label  string
	grants []string
}

func (t *agentTool) call(ctx context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Result{}, tool.ModelRetry("agent %q: arguments must be {\"prompt\": string}: %v", t.label, err)
	}
	var opts []RunOption
	if t.grants != nil {
		opts = append(opts, WithGrants(t.grants...))
	}
	parent := parentRun(ctx)
	if parent != nil {
		limits, spent := parent.childLimits(t.child.limits)
		if spent != "" {
			return tool.Result{}, tool.UserError("agent %q was not run: this run's %s is spent", t.label, spent)
		}
		opts = append(opts, WithUsageLimits(limits))
	}
	if parent != nil && len(parent.o.events) > 0 {
		opts = append(opts, WithEvents(func(ev Event) {
			// An event of a grandchild keeps the name of the agent that
			// made it.
			if ev.AgentName == "" {
				ev.AgentName = t.label
			}
			parent.forward(ev)
		}))
	}
	res, err := t.child.NewSession().Run(ctx, in.Prompt, opts...)
	if res != nil && parent != nil {
		parent.addChildUsage(res.Usage)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return tool.Result{}, tool.Cancelled(fmt.Sprintf("agent %q was cancelled", t.label))
		}
		return tool.Result{}, tool.UserError("agent %q failed: %s", t.label, err.Error())
	}
	switch res.Status {
	case StatusCompleted:
	case StatusWaiting:
		return tool.Result{}, tool.UserError("agent %q stopped to wait for %s; agents that wait for people are not supported as tools yet",
			t.label, pendingKinds(res.Pending))
	default:
		return tool.Result{}, tool.UserError("agent %q ended %s: %s", t.label, res.Status, res.Error)
	}
	if len(res.OutputValue) > 0 {
		return tool.JSON(res.OutputValue), nil
	}
	return tool.Text(res.Output), nil
}

// pendingKinds names what a waiting run waits for, for the error return.
func pendingKinds(p []Pending) string {
	seen := map[string]bool{}
	var kinds []string
	for _, x := range p {
		if !seen[x.Kind] {
			seen[x.Kind] = true
			kinds = append(kinds, x.Kind)
		}
	}
	if len(kinds) == 0 {
		return "input"
	}
	return strings.Join(kinds, " and ")
}

// runnerKey keys the runner whose tools run under a context, so that an
// agent tool reaches its parent run (usage and events).
type runnerKey struct{}

func withRunner(ctx context.Context, r *runner) context.Context {
	return context.WithValue(ctx, runnerKey{}, r)
}

func parentRun(ctx context.Context) *runner {
	r, _ := ctx.Value(runnerKey{}).(*runner)
	return r
}

// addChildUsage records what a child run consumed; the loop adds it to
// the run's usage when the batch is accounted (tools run on other
// goroutines than the loop's).
func (r *runner) addChildUsage(u model.Usage) {
	r.childMu.Lock()
	r.childUsage.Add(u)
	r.childMu.Unlock()
}

// childLimits are the limits of a child run with own limits: for each
// limit this run sets, the smaller of the child's and what this run has
// left (as published at the last batch: what the batch in flight uses
// is not counted). spent names a limit with nothing left.
func (r *runner) childLimits(own UsageLimits) (l UsageLimits, spent string) {
	r.childMu.Lock()
	used := r.published
	r.childMu.Unlock()
	l = own
	// The child's own request limit is its default when unset.
	l.RequestLimit = own.requests()
	dst := l.fields()
	for i, f := range r.limits.fields() {
		if *f.v == 0 {
			continue
		}
		var use int
		switch f.name {
		case LimitRequests:
			use = used.Requests
		case LimitToolCalls:
			use = used.ToolCalls
		case LimitInputTokens:
			use = used.InputTokens
		case LimitOutputTokens:
			use = used.OutputTokens
		case LimitTotalTokens:
			use = used.InputTokens + used.OutputTokens
		}
		left := *f.v - use
		if left <= 0 {
			return UsageLimits{}, f.name
		}
		if *dst[i].v == 0 || left < *dst[i].v {
			*dst[i].v = left
		}
	}
	return l, ""
}

// publishUsage makes the run's usage so far readable by its tools'
// goroutines (childLimits). Called from the loop's goroutine.
func (r *runner) publishUsage() {
	r.childMu.Lock()
	r.published = r.usage
	r.childMu.Unlock()
}

// foldChildUsage adds the usage of the child runs that ended since the
// last fold to the run's usage. Called from the loop's goroutine.
func (r *runner) foldChildUsage() {
	r.childMu.Lock()
	u := r.childUsage
	r.childUsage = model.Usage{}
	r.usage.Add(u)
	r.published = r.usage
	r.childMu.Unlock()
	if u != (model.Usage{}) {
		r.s.actx.AddUsage(agentctx.Usage{Requests: u.Requests, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens})
	}
}

// forward delivers a child run's event to this run's handlers, in this
// run's sequence; the event keeps the child's run id.
func (r *runner) forward(ev Event) {
	if len(r.o.events) == 0 {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.seq++
	ev.Sequence = r.seq
	for _, h := range r.o.events {
		h(ev)
	}
}
