package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// waitState is what a waiting run needs to resume. It is part of the
// exported session state.
type waitState struct {
	RunID   string         `json:"run_id"`
	Step    int            `json:"step"`
	Calls   []tool.Call    `json:"calls"`
	Returns []tool.Return  `json:"returns"`
	Pending []Pending      `json:"pending"`
	Retries map[string]int `json:"retries"`
	Usage   model.Usage    `json:"usage"`
	// Children are the waiting child runs of the batch's agent-tool
	// calls, by call id (see childWait).
	Children map[string]*childWait `json:"children,omitempty"`
	// ChildUsage is what the run's child runs consumed per agent (see
	// RunResult.UsageByAgent).
	ChildUsage map[string]model.Usage `json:"child_usage,omitempty"`
	// Agent names the agent answering when the run was handed off (see
	// Handoff); "" for the session's agent.
	Agent string `json:"agent,omitempty"`
}

type runner struct {
	s            *Session
	a            *Agent
	o            *runOptions
	runID        string
	seq          int
	rc           tool.RunContext
	reg          *tool.Registry
	instructions string
	history      transcript
	start        int
	usage        model.Usage
	limits       UsageLimits
	retries      map[string]int
	settings     model.Settings
	// outputRetries counts the output corrections of this run.
	outputRetries int
	// usageBase is the usage the run started from (a resumed run's), so
	// that the session adds only what this run consumed.
	usageBase model.Usage
	// keepOnFail makes a failed or cancelled run commit what it added
	// (see Session.Run); a resumed run leaves the session waiting instead.
	keepOnFail bool
	// trace is nil when the run is not traced (see WithTracing).
	trace RunTrace
	// spilled indexes the outputs the conversation spilled; nil when the
	// agent never spills (artifacts.go).
	spilled *spillIndex
	// emitMu serialises events: context events come from tools' goroutines.
	emitMu sync.Mutex
	// detachContext stops the delivery of the session's context events to
	// this run (see finish).
	detachContext func()
	// ts are the toolsets the runner enters and reads itself; nil when the
	// run has none (toolsets.go).
	ts *managedSets
	// requested is the number of model requests the run made (resumes
	// included), the step Exit sees.
	requested int
	// childUsage is what the child runs of agent tools consumed since the
	// loop last folded it into usage (agenttool.go); childMu guards it.
	childMu    sync.Mutex
	childUsage model.Usage
	// childByAgent is what the child runs consumed per agent in this run
	// (a resumed run's included), guarded by childMu.
	childByAgent map[string]model.Usage
	// published is usage as the loop last published it (publishUsage),
	// guarded by childMu: tools read it while the loop may write usage.
	published model.Usage
	// parked are the child runs that waited in the batch in flight, by
	// call id (guarded by childMu); account moves them to waiting, which
	// the run's waitState keeps.
	parked  map[string]*childWait
	waiting map[string]*childWait
	// callerEvents are the run's event handlers without its trace's.
	callerEvents []EventHandler
	// view is what the model reads after a handoff with an input filter;
	// nil while it reads the whole history (handoff.go).
	view *handoffView
	// handedOff is set once the run handed off: the request after a
	// handoff may be empty, and events name the answering agent.
	handedOff bool
	// relay emits the failed attempts of the model request in flight as
	// they fail (nil when nobody observes the run).
	relay *attemptRelay
}

func newRunner(ctx context.Context, s *Session, o *runOptions, history transcript) (*runner, error) {
	a := s.agent
	runID := o.runID
	if runID == "" {
		runID = newID("run")
	}
	r := &runner{s: s, a: a, o: o, runID: runID, history: history, start: len(history.full),
		limits: a.limits.over(o.limits), retries: map[string]int{}}
	r.rc.Ctx = ctx
	if err := r.enter(a); err != nil {
		return nil, err
	}
	// A child run's events are forwarded to the caller's handlers only:
	// the child traces itself.
	r.callerEvents = o.events
	if r.trace = startTrace(ctx, a, o); r.trace != nil {
		o.events = append(slices.Clip(o.events), r.trace.Event)
	}
	if s.actx != nil {
		r.detachContext = s.actx.Attach(r.contextEvent)
	}
	return r, nil
}

// enter makes a the agent answering the run: its settings, tool context,
// registry and instructions (newRunner, and each handoff).
func (r *runner) enter(a *Agent) error {
	o, s, ctx, history := r.o, r.s, r.rc.Ctx, r.history
	r.a = a
	r.settings = a.settings.Merge(o.settings)
	r.ts, r.spilled, r.instructions = nil, nil, ""
	md := maps.Clone(a.metadata)
	if len(o.metadata) > 0 {
		if md == nil {
			md = map[string]any{}
		}
		maps.Copy(md, o.metadata)
	}
	deps := a.deps
	if o.deps != nil {
		deps = o.deps
	}
	if deps == nil {
		deps = &tool.Deps{}
	}
	// Named dependencies inserted in the session's agent context join the
	// run's (the context's win under the same name).
	deps = deps.WithNamed(s.actx.NamedDependencies())
	tags := a.activeTags
	if len(o.activeTags) > 0 {
		tags = append(slices.Clip(tags), o.activeTags...)
	}
	r.rc = tool.RunContext{RunStep: r.rc.RunStep, RunID: r.runID, ConversationID: s.id, Metadata: md, ActiveTags: tags, Deps: deps, Ctx: ctx, Agent: s.actx}
	reg, managed, at, err := a.registry(&r.rc, o)
	if err != nil {
		return err
	}
	instr := append(append([]string(nil), a.instructions...), o.instructions...)
	sets, _ := a.runToolsets(o)
	if a.spills() {
		r.spilled = indexSpills(history.full)
	}
	if managed != nil {
		// The registry and instructions are made at the first step (see
		// prepareToolsets), once the managed toolsets are read.
		if o.toolErrorPolicy != nil {
			if err := o.toolErrorPolicy.check(); err != nil {
				return err
			}
		}
		r.ts = newManagedSets(reg, instr, sets, managed, at, &r.rc)
		r.reg = reg
	} else {
		if reg, err = o.restrict(reg); err != nil {
			return err
		}
		r.reg = reg
		if a.spills() {
			if err := reg.Add(r.readArtifactTool()); err != nil {
				return fmt.Errorf("%w: %w", ErrConfig, err)
			}
		}
		if rendered := toolset.RenderInstructions(toolset.CollectInstructions(&r.rc, sets...)); rendered != "" {
			instr = append(instr, rendered)
		}
		r.instructions = strings.Join(instr, "\n\n")
	}
	return nil
}

// contextEvent delivers a context event of the session (see package
// agentctx) as a custom event of the run.
func (r *runner) contextEvent(ev agentctx.Event) {
	r.emit(Event{Kind: EventCustom, Step: r.rc.RunStep, Custom: &CustomEvent{Kind: ev.Kind, Payload: ev.Payload}})
}

// finish ends the runner's hold on the session's resources; every entry
// point that built a runner defers it, whatever the run's outcome.
func (r *runner) finish() {
	r.closeToolsets()
	if r.detachContext != nil {
		r.detachContext()
	}
}

// baseContext is the run-level part of the tool context of the calls of
// step; the registry narrows it per call (tool.Registry.CallContext).
func (r *runner) baseContext(step int) *tool.Context {
	return &tool.Context{RunID: r.runID, ConversationID: r.s.id, RunStep: step, Metadata: r.rc.Metadata, Deps: r.rc.Deps,
		Artifacts: r.a.artifacts, Agent: r.s.actx, Runtime: tool.RuntimeSnapshot{Limits: r.limits.forTools()}}
}

func (r *runner) emit(ev Event) {
	if len(r.o.events) == 0 {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.seq++
	ev.Sequence = r.seq
	ev.RunID = r.runID
	if r.handedOff && ev.AgentName == "" {
		ev.AgentName = r.a.Name()
	}
	for _, h := range r.o.events {
		h(ev)
	}
}

// emitAttempts reports the failed attempts of a fallback model that the
// request ended with, but for those the relay emitted as they failed.
func (r *runner) emitAttempts(step int, attempts []model.Attempt) {
	if r.relay != nil {
		attempts = attempts[min(r.relay.emitted(), len(attempts)):]
	}
	for i := range attempts {
		r.emit(Event{Kind: EventModelFallback, Step: step, Attempt: &attempts[i]})
	}
}

// run sends req and loops until the run ends.
func (r *runner) run(ctx context.Context, req model.Message) (*RunResult, error) {
	r.emit(Event{Kind: EventRunStart})
	return r.loop(ctx, req, 0)
}

func (r *runner) loop(ctx context.Context, req model.Message, step int) (*RunResult, error) {
	ctx = withRunner(ctx, r)
	for ; ; step++ {
		// step is the number of requests this run (resumes included) made.
		if err := r.limits.beforeRequest(step); err != nil {
			if step > 0 {
				// req carries the returns of the batch that just ran: they
				// are what happened, not calls that never ran.
				r.appendRequest(req)
			}
			return r.fail(step, err)
		}
		if err := ctx.Err(); err != nil {
			r.appendRequest(req)
			return r.cancel(step, err)
		}
		r.rc.RunStep = step
		if r.ts != nil {
			if err := r.prepareToolsets(ctx, step); err != nil {
				if step > 0 {
					r.appendRequest(req)
				}
				return r.failOrCancel(ctx, step, err)
			}
		}
		avail := r.reg.DefinitionsFor(&r.rc)
		if len(avail.Unavailable) > 0 {
			r.emit(Event{Kind: EventCustom, Step: step, Custom: &CustomEvent{Kind: CustomToolsUnavailable, Payload: map[string]any{
				"available": nonNil(avail.Available), "unavailable": avail.Unavailable,
			}}})
			if r.a.unavailable == FailOnUnavailable {
				return r.fail(step, fmt.Errorf("%w: %s", ErrUnavailableTools, strings.Join(avail.Unavailable, ", ")))
			}
		}
		// Texts steered so far go with this request, after its returns.
		req.Parts = append(req.Parts, r.o.steering.take()...)
		r.appendRequest(req)
		r.requested = step + 1
		r.emit(Event{Kind: EventModelRequest, Step: step})
		r.relay = nil
		if len(r.o.events) > 0 {
			r.relay = &attemptRelay{r: r, step: step}
		}
		prepared := r.prepared(avail)
		base := r.baseContext(step)
		// Models receive the model-visible projection, shared (see
		// model.Model): never the host surfaces of tool returns.
		resp, early, err := r.ask(ctx, step, prepared, base, r.params(avail.Definitions))
		if err != nil {
			early.drop()
			var fe *model.FallbackError
			if errors.As(err, &fe) {
				r.emitAttempts(step, fe.Attempts)
			}
			if ctx.Err() != nil {
				return r.cancel(step, ctx.Err())
			}
			if !errors.Is(err, ErrArtifacts) {
				err = asModelError(err)
			}
			return r.fail(step, err)
		}
		if err := checkResponse(&resp, step); err != nil {
			early.drop()
			return r.fail(step, err)
		}
		// Nothing a model sends may make history unreadable: arguments
		// beyond the argument limits enter it as text.
		sent := keepReadable(&resp)
		resp.RunID = r.runID
		r.emitAttempts(step, resp.Attempts)
		traceResponse(r.trace, resp)
		r.history.append(resp)
		used := model.Usage{Requests: 1}
		if resp.Usage != nil {
			used = *resp.Usage
		}
		r.usage.Add(used)
		r.publishUsage()
		r.s.actx.AddUsage(agentctx.Usage{Requests: used.Requests, InputTokens: used.InputTokens, OutputTokens: used.OutputTokens})
		r.emit(Event{Kind: EventModelResponse, Step: step, Usage: &used, Response: responseInfo(resp)})
		if r.o.deltas {
			total := r.usage
			r.emit(Event{Kind: EventUsage, Step: step, Usage: &total})
		}
		if err := r.limits.afterResponse(r.usage); err != nil {
			early.drop()
			return r.fail(step, err)
		}

		calls := resp.ToolCalls()
		var retry []model.Part
		if r.a.output != nil {
			res, next, handled, err := r.handleOutput(ctx, step, resp, calls)
			if res != nil || err != nil {
				early.drop()
				return res, err
			}
			if handled {
				early.drop()
				req = next
				continue
			}
			if next.Parts != nil {
				// A retry prompt for the output, sent with the returns of
				// the response's other calls.
				retry = next.Parts
				calls = withoutOutputCalls(calls, r.a.output.spec.Name)
			}
		} else if len(calls) == 0 {
			text := resp.Text()
			if text == "" {
				// A refusal is the answer of a plain text run.
				text, _ = refusal(resp)
			}
			if steered := r.o.steering.takeOrClose(); len(steered) > 0 {
				// Texts steered while the model answered are not lost: the
				// model hears them before the run completes.
				req = model.Request()
				req.Parts = steered
				continue
			}
			return r.complete(step, text, nil)
		}
		if err := r.limits.beforeToolCalls(r.usage.ToolCalls, len(calls)); err != nil {
			early.drop()
			return r.fail(step, err)
		}
		// With a session store, the run is saved before its calls run, so
		// a later load knows they may have run (recover.go).
		if err := r.checkpoint(ctx, step, calls, retry); err != nil {
			early.drop()
			return r.failOrCancel(ctx, step, err)
		}
		for i := range calls {
			if len(r.o.events) == 0 {
				break // nobody observes: no event to build per call
			}
			c := model.ToolCall{ID: calls[i].ID, Name: calls[i].Name, Arguments: calls[i].Arguments}
			r.emit(Event{Kind: EventToolCall, Step: step, ToolCall: &c})
		}
		returns := r.execute(ctx, prepared, base, sent.restore(calls), early)
		h, at := r.pickHandoff(calls, returns)
		next, res, err := r.settle(ctx, step, calls, returns, nil)
		if res != nil {
			return res, err
		}
		next.Parts = append(next.Parts, retry...)
		req = next
		if h != nil {
			if err := r.handOff(ctx, step, h, calls[at], next); err != nil {
				return r.failOrCancel(ctx, step, err)
			}
			req = model.Request()
		}
	}
}

// params is what a request carries besides the messages: the tools
// available (and the output tool), the run's settings and the output.
func (r *runner) params(defs []tool.Definition) model.Params {
	p := model.Params{Tools: nonNilDefs(defs), Settings: r.settings}
	if o := r.a.output; o != nil {
		if o.spec.Mode == model.OutputTool {
			p.Tools = append(p.Tools[:len(p.Tools):len(p.Tools)], o.def.Clone())
		}
		p.Output = o.params()
	}
	return p
}

// handleOutput decides what a response means for an agent that asks for
// structured output. It ends the run (res or err set), or returns the next
// request (handled), or returns retry parts in next.Parts for the caller to
// send after the returns of the response's other calls; with none of these
// the response's calls run as usual.
func (r *runner) handleOutput(ctx context.Context, step int, resp model.Message, calls []tool.Call) (res *RunResult, next model.Message, handled bool, err error) {
	o := r.a.output
	var candidate *tool.Call
	if o.spec.Mode == model.OutputTool {
		for i := range calls {
			if calls[i].Name == o.spec.Name {
				candidate = &calls[i]
				break
			}
		}
	}
	if candidate == nil && len(calls) > 0 {
		return nil, model.Message{}, false, nil
	}
	if candidate == nil {
		if text, ok := refusal(resp); ok && strings.TrimSpace(resp.Text()) == "" {
			res, err := r.fail(step, fmt.Errorf("%w: the model refused to give the %q output: %s", ErrModel, o.spec.Name, text))
			return res, model.Message{}, false, err
		}
		var c tool.Call
		var prompt *model.Part
		if o.spec.Mode == model.OutputTool {
			p := model.RetryPrompt(outputTextRetry, "")
			prompt = &p
		} else {
			c, prompt = r.nativeCall(resp.Text())
		}
		if prompt == nil {
			v := r.checkOutput(ctx, step, c)
			if v.err != nil {
				res, err := r.failOrCancel(ctx, step, v.err)
				return res, model.Message{}, false, err
			}
			if v.value != nil {
				res, err := r.complete(step, string(v.value), v.value)
				return res, model.Message{}, false, err
			}
			prompt = v.retry
		}
		if err := r.spendOutputRetry(); err != nil {
			res, err := r.fail(step, err)
			return res, model.Message{}, false, err
		}
		return nil, model.Request(*prompt), true, nil
	}
	v := r.checkOutput(ctx, step, *candidate)
	if v.err != nil {
		res, err := r.failOrCancel(ctx, step, v.err)
		return res, model.Message{}, false, err
	}
	if v.retry != nil {
		if err := r.spendOutputRetry(); err != nil {
			res, err := r.fail(step, err)
			return res, model.Message{}, false, err
		}
		next := model.Request(*v.retry)
		others := 0
		for _, c := range calls {
			switch {
			case c.ID == candidate.ID:
			case c.Name == o.spec.Name:
				// Only the first output call of a response is checked; the
				// others still get a return so the history stays well formed.
				next.Parts = append(next.Parts, model.ToolReturn(tool.Return{ToolCallID: c.ID, Name: c.Name,
					Content: outputNotChecked, Metadata: map[string]any{}}))
			default:
				others++
			}
		}
		return nil, next, others == 0, nil
	}
	// The output wins: every call of the response gets a return, the
	// other calls without running, so the history stays well formed.
	final := model.Message{Kind: model.KindRequest, Parts: make([]model.Part, 0, len(calls))}
	for _, c := range calls {
		tc := model.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		r.emit(Event{Kind: EventToolCall, Step: step, ToolCall: &tc})
		content := outputNotExecuted
		if c.ID == candidate.ID {
			content = outputProcessed
		}
		ret := tool.Return{ToolCallID: c.ID, Name: c.Name, Content: content, Metadata: map[string]any{}}
		r.emit(Event{Kind: EventToolReturn, Step: step, Return: &ret})
		final.Parts = append(final.Parts, model.ToolReturn(ret))
	}
	r.history.append(r.request(final))
	res, err = r.complete(step, string(v.value), v.value)
	return res, model.Message{}, false, err
}

// failOrCancel fails the run with err, or cancels it when its context
// ended.
func (r *runner) failOrCancel(ctx context.Context, step int, err error) (*RunResult, error) {
	if ctx.Err() != nil {
		return r.cancel(step, ctx.Err())
	}
	return r.fail(step, err)
}

// withoutOutputCalls returns calls without those of the output tool.
func withoutOutputCalls(calls []tool.Call, name string) []tool.Call {
	out := make([]tool.Call, 0, len(calls))
	for _, c := range calls {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

// settle finishes a batch: it accounts its returns (see account), then
// either ends the run (failed, cancelled or waiting; res is set) or returns
// the next request, which carries the returns in model order.
func (r *runner) settle(ctx context.Context, step int, calls []tool.Call, returns []tool.Return, only func(int) bool) (next model.Message, res *RunResult, err error) {
	// What the model may not read is withheld, and what is too long is
	// spilled, before anything is accounted or enters history; a withheld
	// output fails the run whatever else the batch says.
	disclosed := r.disclose(ctx, returns)
	pending, err := r.account(step, calls, returns, only)
	if disclosed != nil {
		err = disclosed
	}
	next = model.Message{Kind: model.KindRequest, Parts: make([]model.Part, 0, len(returns))}
	// The parts' returns are copies, made with one allocation for all.
	copied := slices.Clone(returns)
	for i := range copied {
		next.Parts = append(next.Parts, model.Part{Kind: model.KindToolReturn, Return: &copied[i]})
	}
	switch {
	case err != nil:
		r.history.append(r.request(next))
		res, err = r.fail(step, err)
	case ctx.Err() != nil:
		r.history.append(r.request(next))
		res, err = r.cancel(step, ctx.Err())
	case len(pending) > 0:
		res, err = r.wait(step, calls, returns, pending)
	}
	return next, res, err
}

// account applies the model-correction budget (which calls of unknown
// tools spend too, per name), counts successful calls,
// collects pending approvals and deferred calls, and emits tool_return
// events, all in model order. When only is set, returns it rejects were
// accounted before (a resumed batch) and are skipped.
func (r *runner) account(step int, calls []tool.Call, returns []tool.Return, only func(int) bool) ([]Pending, error) {
	var pending []Pending
	// failed is the first call, in model order, that fails the run under
	// FailFast; the batch is still accounted to its end.
	var failed error
	r.foldChildUsage()
	for i := range returns {
		if only != nil && !only(i) {
			continue
		}
		ret := &returns[i]
		// A model repeating an unknown name would otherwise loop until the
		// request limit; it gets the correction budget of the agent.
		// Only the typed Runtime counts: a key a tool put in its own
		// metadata changes nothing here. A successful return has none.
		rt := ret.Runtime
		if rt == nil {
			if !ret.IsError {
				r.usage.ToolCalls++
			}
			r.emit(Event{Kind: EventToolReturn, Step: step, Return: ret})
			continue
		}
		unknown := rt.ErrorKind == tool.ErrorKindNotFound
		spent := unknown || ret.IsError && rt.Flags.ModelRetryable
		if spent {
			max := r.reg.MaxRetriesFor(ret.Name)
			if r.retries[ret.Name] >= max {
				r.emit(Event{Kind: EventToolReturn, Step: step, Return: ret})
				if failed != nil {
					return nil, failed
				}
				return nil, &RetryLimitError{Tool: ret.Name, MaxRetries: max, Unknown: unknown}
			}
			r.retries[ret.Name]++
			// A copy: the runtime may be shared with other copies of the
			// return.
			c := *rt
			c.Retry, c.MaxRetries = r.retries[ret.Name], max
			rt, ret.Runtime = &c, &c
		}
		if !ret.IsError && rt.ErrorKind == "" {
			r.usage.ToolCalls++
		}
		switch rt.ErrorKind {
		case tool.ErrorKindApprovalRequired:
			pending = append(pending, Pending{Kind: PendingApproval, ID: "approval_" + r.runID + "_" + ret.ToolCallID,
				ToolCallID: ret.ToolCallID, ToolName: ret.Name, Arguments: calls[i].Arguments, Metadata: rt.Request})
		case tool.ErrorKindCallDeferred:
			// A waiting child run's requests wait in its stead.
			if cw := r.unpark(ret.ToolCallID); cw != nil {
				pending = append(pending, cw.pending(ret.ToolCallID)...)
				break
			}
			pending = append(pending, Pending{Kind: PendingDeferred, ID: "deferred_" + r.runID + "_" + ret.ToolCallID,
				ToolCallID: ret.ToolCallID, ToolName: ret.Name, Arguments: calls[i].Arguments, Metadata: rt.Request,
				CompletionKey: completionKeyOf(rt.Request)})
		}
		r.emit(Event{Kind: EventToolReturn, Step: step, Return: ret})
		if spent && r.o.deltas {
			r.emit(Event{Kind: EventRetry, Step: step, Return: ret})
		}
		if failed == nil {
			failed = r.failFast(ret)
		}
	}
	r.dropParked()
	return pending, failed
}

// prepared is the registry a step's calls may use: the tools whose
// definitions were sent (calls to others are not_found).
func (r *runner) prepared(avail tool.Availability) *tool.Registry {
	if len(avail.Unavailable) == 0 {
		return r.reg
	}
	return r.reg.Select(avail.Available)
}

func (r *runner) request(m model.Message) model.Message {
	m.RunID = r.runID
	m.Instructions = r.instructions
	return m
}

// result shares the history rather than copying it (see transcript and
// RunResult.Messages): a copy per run would make a session's results cost
// memory quadratic in its length.
func (r *runner) result(status Status) *RunResult {
	r.o.steering.close()
	msgs := clip(r.history.full)
	r.foldChildUsage()
	r.s.addUsage(r.usage, r.usageBase)
	r.usageBase = r.usage
	return &RunResult{
		RunID:         r.runID,
		Status:        status,
		Messages:      msgs,
		NewMessages:   msgs[r.start:],
		Usage:         r.usage,
		UsageByAgent:  r.usageByAgent(),
		LastAgent:     r.a,
		LastAgentName: r.a.Name(),
	}
}

func (r *runner) complete(step int, output string, value json.RawMessage) (*RunResult, error) {
	res := r.result(StatusCompleted)
	res.Output = output
	res.OutputValue = value
	r.s.commit(r.history, nil)
	r.emit(Event{Kind: EventRunComplete, Step: step, Output: output, Usage: &res.Usage})
	return res, nil
}

func (r *runner) wait(step int, calls []tool.Call, returns []tool.Return, pending []Pending) (*RunResult, error) {
	res := r.result(StatusWaiting)
	res.Pending = pending
	res.Batch = append([]tool.Return(nil), returns...)
	r.s.commit(r.history, &waitState{RunID: r.runID, Step: step, Calls: calls, Returns: returns,
		Pending: pending, Retries: maps.Clone(r.retries), Usage: r.usage, Agent: r.answering(),
		Children: r.waiting, ChildUsage: maps.Clone(r.childByAgent)})
	r.waiting = nil
	for _, p := range pending {
		if p.Kind == PendingDeferred {
			r.emit(Event{Kind: EventDeferredRequested, Step: step, Custom: &CustomEvent{Kind: EventDeferredRequested, Payload: map[string]any{
				"id": p.ID, "tool_call_id": p.ToolCallID, "tool_name": p.ToolName, "metadata": p.Metadata,
			}}})
		}
	}
	if r.o.deltas {
		r.emit(Event{Kind: EventSuspended, Step: step, Usage: &res.Usage, Custom: &CustomEvent{Kind: EventSuspended, Payload: map[string]any{
			"pending": pending,
		}}})
	}
	r.emit(Event{Kind: EventRunWaiting, Step: step, Usage: &res.Usage})
	return res, nil
}

// end stores what a failed or cancelled run added: committed, with the
// calls it never ran answered, when the run keeps them; otherwise the
// session is sealed and keeps its history.
func (r *runner) end(cause error) {
	if !r.keepOnFail {
		r.s.seal()
		return
	}
	r.history.closeDangling(r.request, cause)
	r.s.commit(r.history, nil)
}

func (r *runner) fail(step int, err error) (*RunResult, error) {
	r.end(err)
	res := r.result(StatusFailed)
	res.Error = err.Error()
	r.emit(Event{Kind: EventRunFailed, Step: step, Error: err.Error()})
	return res, err
}

func (r *runner) cancel(step int, cause error) (*RunResult, error) {
	// An interrupt names its reason; a plain cancellation has none.
	ie := interruptOf(r.rc.Ctx)
	if ie != nil {
		cause = ie
	}
	err := fmt.Errorf("%w: %w", ErrCancelled, cause)
	r.end(err)
	res := r.result(StatusCancelled)
	res.Error = err.Error()
	ev := Event{Kind: EventRunCancelled, Step: step, Error: err.Error()}
	if ie != nil {
		ev.Custom = &CustomEvent{Kind: CustomInterrupt, Payload: map[string]any{"reason": ie.Reason}}
	}
	r.emit(ev)
	return res, err
}

// checkResponse rejects responses the loop cannot act on and gives calls
// without ids stable ones.
func checkResponse(m *model.Message, step int) error {
	if len(m.Parts) == 0 {
		return fmt.Errorf("%w: empty response", ErrModel)
	}
	seen := make(map[string]bool, len(m.Parts))
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.Kind {
		case model.KindText, model.KindThinking, model.KindRefusal:
		case model.KindToolCall:
			if p.ToolCall == nil || p.ToolCall.Name == "" {
				return fmt.Errorf("%w: tool call %d has no name", ErrModel, i)
			}
			if p.ToolCall.ID == "" {
				// A copy: the part may be shared with the model's own state.
				c := *p.ToolCall
				c.ID = fmt.Sprintf("call_%d_%d", step, i)
				p.ToolCall = &c
			}
			if seen[p.ToolCall.ID] {
				return fmt.Errorf("%w: duplicate tool call id %q", ErrModel, p.ToolCall.ID)
			}
			seen[p.ToolCall.ID] = true
		default:
			return fmt.Errorf("%w: unexpected %q part in a response", ErrModel, p.Kind)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilDefs(d []tool.Definition) []tool.Definition {
	if d == nil {
		return []tool.Definition{}
	}
	return d
}

// responseInfo is the model_response event's view of resp; nil when the
// model said nothing about it.
func responseInfo(resp model.Message) *ResponseInfo {
	if resp.ModelName == "" && resp.FinishReason == "" && resp.Provider == "" && resp.ResponseID == "" {
		return nil
	}
	return &ResponseInfo{ModelName: resp.ModelName, FinishReason: resp.FinishReason, Provider: resp.Provider, ResponseID: resp.ResponseID}
}
