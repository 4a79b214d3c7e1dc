package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/effect"
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
	// Deps names the parent run's named dependencies the child's runs
	// receive besides the child agent's own; no other dependency of the
	// parent reaches the child.
	Deps []string
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
// the child. A child run that waits for people (approvals, deferred
// calls, questions) makes the parent's run wait: the parent's Pending
// lists the child's requests with Path and ParentToolCallID set, the
// parent's state (exported or in its session store) keeps the child's,
// and resuming the parent with answers to them resumes the child where
// it stopped. Outside a run, or run by an Executor, such a child gives an
// error return.
//
// When the parent run streams (WithDeltas) or is traced (WithTracing),
// the child's run does too: its deltas reach the parent's handlers with
// AgentName set, and its spans nest under the call's.
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
	at := &agentTool{child: child, label: label, grants: opts.Grants, deps: opts.Deps}
	f := tool.New(name, opts.Description, agentToolSchema(), at.call)
	if at.durable() {
		// The child's session, found again by the call's key, makes a
		// call run again an idempotent one (see reenter).
		f.WithEffect(effect.ClassIdempotentWrite)
	}
	f.ToolConfig().Resource = ownResource(name)
	if opts.MaxRetries != nil {
		n := *opts.MaxRetries
		f.ToolConfig().MaxRetries = &n
	}
	if err := f.Err(); err != nil {
		return nil, fmt.Errorf("agent tool %q: %w", name, err)
	}
	return &agentToolFunc{Function: f, at: at}, nil
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
	deps   []string
}

func (t *agentTool) call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Result{}, tool.ModelRetry("agent %q: arguments must be {\"prompt\": string}: %v", t.label, err)
	}
	return t.run(ctx, tc, in.Prompt)
}

// run runs the child on prompt for call tc (see AsTool): a new run, the
// resume of a waiting one, or the re-entry of a durable one.
func (t *agentTool) run(ctx context.Context, tc *tool.Context, prompt string) (tool.Result, error) {
	parent := parentRun(ctx)
	var callID string
	if tc != nil {
		callID = tc.ToolCallID
	}
	resume := childResumeOf(ctx, parent, callID)
	var before model.Usage // what the parent counted of the child already
	if resume != nil {
		before = resume.wait.Usage
	}
	opts, spent := t.options(parent, callID, before)
	if spent != "" {
		return tool.Result{}, tool.UserError("agent %q was not run: this run's %s is spent", t.label, spent)
	}
	var (
		sess *Session
		res  *RunResult
		err  error
	)
	switch {
	case resume != nil:
		// The parent's state, verified when it was restored, covers the
		// child's; a child with a key checks its signature again.
		sess, err = t.child.SessionFromState(resume.wait.State, AllowUnsigned())
		if err != nil {
			return tool.Result{}, tool.UserError("agent %q could not be resumed: %s", t.label, err.Error())
		}
		res, err = sess.Resume(ctx, resume.res, opts...)
	case t.durable() && tc != nil && (tc.ConversationID != "" || tc.RunID != ""):
		sess, res, err = t.reenter(ctx, childSessionID(tc.IdempotencyKey()), prompt, opts)
	default:
		sess = t.child.NewSession()
		res, err = sess.Run(ctx, prompt, opts...)
	}
	if res != nil && parent != nil {
		var earlier map[string]model.Usage
		if resume != nil {
			earlier = resume.wait.ByAgent
		}
		parent.addChildUsage(usageSince(res.Usage, before), byAgentSince(t.label, res, earlier))
	}
	return t.outcome(ctx, parent, callID, sess, res, err)
}

// grantedDeps are the run's named dependencies that names grant to a
// child run.
func (r *runner) grantedDeps(names []string) map[string]any {
	var out map[string]any
	for _, n := range names {
		if v, ok := r.rc.Deps.Named(n); ok {
			if out == nil {
				out = map[string]any{}
			}
			out[n] = v
		}
	}
	return out
}

// durable reports whether the child's runs are kept in a session store:
// a call then runs the child in a session of its own key (reenter).
func (t *agentTool) durable() bool { return t.child.sessions != nil }

// childSessionID is the id of the child session of the call with
// idempotency key key: the same for the same call run again, after a
// crash included.
func childSessionID(key string) string {
	sum := sha256.Sum256([]byte("agent tool child\x00" + key))
	return "conv_child_" + hex.EncodeToString(sum[:12])
}

// reenter runs the child of a call in the child's session id, kept in the
// child's session store: a new session runs prompt; one the call started
// before (the parent's run is recovered after a crash) goes on from where
// it stopped. Its run in flight is recovered (the child's effect journal
// runs each of its effects at most once), a wait is waited for again, and
// a run that ended gives its outcome without running again.
func (t *agentTool) reenter(ctx context.Context, id, prompt string, opts []RunOption) (*Session, *RunResult, error) {
	sess, err := t.child.OpenSession(ctx, id)
	switch {
	case errors.Is(err, ErrSessionNotFound):
		if sess, err = t.child.SessionWithID(id, nil); err != nil {
			return nil, nil, err
		}
		res, err := sess.Run(ctx, prompt, opts...)
		return sess, res, err
	case err != nil:
		return nil, nil, err
	}
	if _, ok := sess.InFlight(); ok {
		res, err := sess.Recover(ctx, opts...)
		return sess, res, err
	}
	if p := sess.Pending(); len(p) > 0 {
		return sess, &RunResult{Status: StatusWaiting, Pending: p}, nil
	}
	res, err := t.endedRun(sess)
	return sess, res, err
}

// endedRun is the outcome of the child run that ended in sess before the
// parent recorded it (the parent stopped in between): the answer of the
// session's last response, which a completed run ends with.
func (t *agentTool) endedRun(sess *Session) (*RunResult, error) {
	noAnswer := fmt.Errorf("%w: its run ended without an answer before this run was recovered", ErrState)
	msgs := sess.Messages()
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == model.KindResponse {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, noAnswer
	}
	resp := msgs[last]
	res := &RunResult{RunID: resp.RunID, Status: StatusCompleted, Messages: msgs}
	o := t.child.output
	if o == nil {
		// A text answer ends the history; a run that failed after its
		// last response does not.
		if last != len(msgs)-1 || len(resp.ToolCalls()) > 0 {
			return nil, noAnswer
		}
		res.Output = resp.Text()
		return res, nil
	}
	name := o.spec.ToolName()
	for _, c := range resp.ToolCalls() {
		if c.Name == name {
			res.OutputValue = append(json.RawMessage(nil), c.Arguments...)
			res.Output = string(res.OutputValue)
			return res, nil
		}
	}
	if text := strings.TrimSpace(resp.Text()); o.spec.Mode == model.OutputNative && json.Valid([]byte(text)) {
		res.OutputValue, res.Output = json.RawMessage(text), text
		return res, nil
	}
	return nil, noAnswer
}

// options are the child run's options under parent (nil when the tool
// runs outside a run): its grants, the parent's remaining limits, and the
// parent's event handlers, streaming and tracer. before is the child's
// usage the parent counted already (a resumed child). spent names a
// limit of the parent with nothing left.
func (t *agentTool) options(parent *runner, callID string, before model.Usage) (opts []RunOption, spent string) {
	if t.grants != nil {
		opts = append(opts, WithGrants(t.grants...))
	}
	if parent == nil {
		return opts, ""
	}
	limits, spent := parent.childLimits(t.child.limits, before)
	if spent != "" {
		return nil, spent
	}
	opts = append(opts, WithUsageLimits(limits))
	if picked := parent.grantedDeps(t.deps); len(picked) > 0 {
		opts = append(opts, WithDeps(t.child.deps.WithNamed(picked)))
	}
	if len(parent.callerEvents) > 0 {
		opts = append(opts, WithEvents(func(ev Event) {
			// An event of a grandchild keeps the name of the agent that
			// made it.
			if ev.AgentName == "" {
				ev.AgentName = t.label
			}
			ev.ParentToolCallID = callID
			parent.forward(ev)
		}))
	}
	if parent.o.deltas {
		opts = append(opts, WithDeltas())
	}
	if parent.o.tracer != nil {
		// The call's context carries its span: the child's run nests
		// under it.
		opts = append(opts, WithTracing(parent.o.tracer))
	}
	return opts, ""
}

// wait makes a waiting child's requests the parent's: the call returns
// call_deferred, and the parent parks the child's state so that the
// parent waits for what the child waits for. Outside a run (or a call
// without an id, or a child whose session is elsewhere: an executor's)
// there is no parent to wait: the call fails.
func (t *agentTool) wait(parent *runner, callID string, sess *Session, res *RunResult) (tool.Result, error) {
	if parent == nil || callID == "" || sess == nil {
		return tool.Result{}, tool.UserError("agent %q stopped to wait for %s, and there is no run to wait with it",
			t.label, pendingKinds(res.Pending))
	}
	state, err := sess.ExportState()
	if err != nil {
		return tool.Result{}, tool.UserError("agent %q stopped to wait for %s, and its state could not be kept: %s",
			t.label, pendingKinds(res.Pending), err.Error())
	}
	parent.park(callID, &childWait{Agent: t.label, State: state, Usage: res.Usage, ByAgent: byAgentSince(t.label, res, nil), asked: res.Pending})
	return tool.Result{}, tool.CallDeferred(fmt.Sprintf("agent %q waits for %s", t.label, pendingKinds(res.Pending)),
		map[string]any{"agent": t.label})
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

// addChildUsage records what a child run consumed, in all and per agent;
// the loop adds it to the run's usage when the batch is accounted (tools
// run on other goroutines than the loop's).
func (r *runner) addChildUsage(u model.Usage, byAgent map[string]model.Usage) {
	r.childMu.Lock()
	r.childUsage.Add(u)
	if r.childByAgent == nil {
		r.childByAgent = map[string]model.Usage{}
	}
	for name, v := range byAgent {
		if v == (model.Usage{}) {
			continue // an agent that consumed nothing is not listed
		}
		sum := r.childByAgent[name]
		sum.Add(v)
		r.childByAgent[name] = sum
	}
	r.childMu.Unlock()
}

// byAgentSince is what a child run (labelled label) consumed per agent:
// its own and its children's (res.UsageByAgent), or all of it under label
// when it had none; less earlier, what it had consumed when it waited.
func byAgentSince(label string, res *RunResult, earlier map[string]model.Usage) map[string]model.Usage {
	out := map[string]model.Usage{}
	if len(res.UsageByAgent) > 0 {
		for name, u := range res.UsageByAgent {
			out[name] = u
		}
	} else {
		out[label] = res.Usage
	}
	for name, u := range earlier {
		out[name] = usageSince(out[name], u)
	}
	return out
}

// usageByAgent is what the run consumed per agent when agent tools ran
// (nil when none did): the children's, and the rest under the run's own
// agent's name.
func (r *runner) usageByAgent() map[string]model.Usage {
	r.childMu.Lock()
	defer r.childMu.Unlock()
	if len(r.childByAgent) == 0 {
		return nil
	}
	out := make(map[string]model.Usage, len(r.childByAgent)+1)
	own := r.usage
	for name, u := range r.childByAgent {
		out[name] = u
		own = usageSince(own, u)
	}
	sum := out[r.a.name]
	sum.Add(own)
	out[r.a.name] = sum
	return out
}

// childLimits are the limits of a child run with own limits: for each
// limit this run sets, the smaller of the child's and what this run has
// left (as published at the last batch: what the batch in flight uses
// is not counted), less before (see options). spent names a limit with
// nothing left.
func (r *runner) childLimits(own UsageLimits, before model.Usage) (l UsageLimits, spent string) {
	r.childMu.Lock()
	// A resumed child counts on from its usage before: what it used then
	// is the child's, not the rest of the tree's.
	used := usageSince(r.published, before)
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
	if len(r.callerEvents) == 0 {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.seq++
	ev.Sequence = r.seq
	for _, h := range r.callerEvents {
		h(ev)
	}
}
