package agent

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// ask sends one request. When the model streams, the response's deltas
// become events (WithDeltas) and its calls may start before it ends (see
// Builder.EagerDispatch): early holds them, and the caller must either
// hand it to execute or drop it. early is nil when nothing may start.
func (r *runner) ask(ctx context.Context, step int, reg *tool.Registry, base *tool.Context, params model.Params) (resp model.Message, early *eager, err error) {
	if r.o.executor != nil {
		resp, err = r.askExecutor(ctx, step, params)
		return resp, nil, err
	}
	msgs, err := r.a.processHistory(ctx, r.modelMessages())
	if err == nil {
		msgs, err = r.resolve(ctx, msgs)
	}
	if err != nil {
		return model.Message{}, nil, err
	}
	// The model's request runs inside the chat span; calls started early
	// get their own spans (callContext).
	mctx := r.relay.into(chatContext(ctx, r.trace))
	_, streams := r.a.model.(model.Streamer)
	if !streams {
		resp, err = r.a.model.Request(mctx, msgs, params)
		if err == nil && r.o.deltas {
			r.emitWhole(step, resp)
		}
		return resp, nil, err
	}
	deltas := r.o.deltas
	// A run that asks for deltas streams the response (Stream streams
	// whatever the model's own setting), and a streamed response is a
	// streamed response: its calls may start early. Without deltas, only a
	// model that streams anyway is streamed for eager dispatch, so a
	// server that answers only whole responses keeps working.
	if r.eagerAllowed() && (deltas || model.StreamsByDefault(r.a.model)) {
		early = newEager(ctx, r, reg, base)
	}
	if !deltas && early == nil {
		resp, err = r.a.model.Request(mctx, msgs, params)
		return resp, nil, err
	}
	resp, err = model.StreamOrRequest(mctx, r.a.model, msgs, params, func(d model.Delta) {
		if deltas {
			r.emitDelta(step, d)
		}
		if early != nil && d.Kind == model.DeltaToolCallDone {
			early.offer(d)
		}
	})
	if early != nil && early.idle() {
		early = nil
	}
	return resp, early, err
}

// eagerAllowed reports whether this run's agent may start calls while a
// response streams: the batch rules that hold for every response
// (model order, a concurrency cap, an output tool whose arrival means the
// other calls never run, a checkpoint that must precede every call: see
// Builder.SessionStore and recover.go) rule it out.
func (r *runner) eagerAllowed() bool {
	if r.o.executor != nil || r.a.noEager || r.a.sequential || r.a.maxConcurrency > 0 || r.s.agent.sessions != nil {
		return false
	}
	return r.a.output == nil || r.a.output.spec.Mode != model.OutputTool
}

func (r *runner) emitDelta(step int, d model.Delta) {
	kind := EventToolCallDelta
	switch d.Kind {
	case model.DeltaText:
		kind = EventTextDelta
	case model.DeltaThinking:
		kind = EventThinkingDelta
	case model.DeltaToolCallStart, model.DeltaToolCallArguments, model.DeltaToolCallDone:
	default:
		// A kind this runtime does not know yet: observers could not read
		// it, and the response still carries the part.
		return
	}
	if d.Call != nil {
		// The handler must not keep the call past its return, and must be
		// able to read it as history could (see keepReadable).
		c := *d.Call
		if safe, kept := tool.ArgumentsForHistory(c.Arguments); kept {
			c.Arguments = bytes.Clone(c.Arguments)
		} else {
			c.Arguments = safe
		}
		d.Call = &c
	}
	r.emit(Event{Kind: kind, Step: step, Delta: &d})
}

// emitWhole reports the response of a model that does not stream as the
// deltas of one piece each, in part order.
func (r *runner) emitWhole(step int, resp model.Message) {
	i := 0
	for _, p := range resp.Parts {
		switch p.Kind {
		case model.KindText:
			r.emitDelta(step, model.Delta{Kind: model.DeltaText, Text: p.Text})
		case model.KindThinking:
			r.emitDelta(step, model.Delta{Kind: model.DeltaThinking, Text: p.Text})
		case model.KindToolCall:
			if p.ToolCall != nil {
				r.emitDelta(step, model.Delta{Kind: model.DeltaToolCallDone, Index: i, Call: p.ToolCall})
				i++
			}
		}
	}
}

// eager is the calls of one response started while it streams: always a
// prefix of the response's calls, each run as a parallel batch runs it
// (Registry.StartCall: a host tool's call without a goroutine of its own)
// under a context the loop cancels when the response fails.
type eager struct {
	r      *runner
	reg    *tool.Registry
	base   *tool.Context
	ctx    context.Context
	cancel context.CancelFunc
	calls  []tool.Call
	rets   []*tool.Return
	check  *tool.SequentialCheck // the batch rules over calls
	wg     sync.WaitGroup
	// stopped is set at the first call that may not start early: later
	// calls wait for the response too, so that none overtakes it.
	stopped bool
	// argBuf and retBuf hold the calls' arguments and returns in chunks,
	// so that a call costs no allocation of its own for them.
	argBuf []byte
	retBuf []tool.Return
}

// clone copies a call's arguments (the stream may reuse its buffer). The
// chunks double from the first call's size, so that a response of one
// call costs no more than before.
func (e *eager) clone(args []byte) []byte {
	if args == nil {
		return nil
	}
	if cap(e.argBuf)-len(e.argBuf) < len(args) {
		e.argBuf = make([]byte, 0, max(min(2*cap(e.argBuf), 4096), len(args)))
	}
	n := len(e.argBuf)
	e.argBuf = append(e.argBuf, args...)
	return e.argBuf[n:len(e.argBuf):len(e.argBuf)]
}

// newReturn is where a started call writes its return; it never moves.
// The chunks double from one, as clone's do.
func (e *eager) newReturn() *tool.Return {
	if len(e.retBuf) == cap(e.retBuf) {
		e.retBuf = make([]tool.Return, 0, min(max(2*cap(e.retBuf), 1), 256))
	}
	e.retBuf = e.retBuf[:len(e.retBuf)+1]
	return &e.retBuf[len(e.retBuf)-1]
}

func newEager(ctx context.Context, r *runner, reg *tool.Registry, base *tool.Context) *eager {
	e := &eager{r: r, reg: reg, base: base, check: reg.NewSequentialCheck()}
	e.ctx, e.cancel = context.WithCancel(ctx)
	return e
}

// idle reports whether no call started; it releases the context then.
func (e *eager) idle() bool {
	if len(e.calls) > 0 {
		return false
	}
	e.cancel()
	return true
}

// offer starts the call of a tool_call_done delta when the batch rules
// would run it in parallel right away (see Builder.EagerDispatch).
func (e *eager) offer(d model.Delta) {
	if e.stopped {
		return
	}
	// A call without an id gets its id from the whole response (see
	// checkResponse), so it cannot be matched before; a gap in the indexes
	// means the stream is not one this loop can follow.
	if d.Call == nil || d.Call.ID == "" || d.Index != len(e.calls) {
		e.stopped = true
		return
	}
	c := tool.Call{ID: d.Call.ID, Name: d.Call.Name, Arguments: e.clone(d.Call.Arguments), Index: d.Index}
	if !e.admits(c) {
		e.stopped = true
		return
	}
	// The registry derives each call's own context from tc; the run's
	// base serves as is when it holds the call's retry count already.
	tc := e.base
	if retry := e.r.retries[c.Name]; tc == nil || tc.Retry != retry {
		tc = &tool.Context{}
		if e.base != nil {
			*tc = *e.base
		}
		tc.Retry = retry
	}
	ret := e.newReturn()
	e.calls = append(e.calls, c)
	e.rets = append(e.rets, ret)
	ctx := e.ctx
	if e.r.trace != nil {
		ctx = e.r.trace.CallContext(ctx, c)
	}
	e.wg.Add(1)
	e.reg.StartCall(ctx, tc, c, ret, &e.wg)
}

// admits applies the batch rules to c following the calls started so far.
func (e *eager) admits(c tool.Call) bool {
	if _, ok := e.reg.Tool(c.Name); !ok {
		return false // unknown or unavailable: answered after the response
	}
	// Read in place: a copy of the definition per call cost more than
	// the rest of this check.
	v, _ := e.reg.MetadataValue(c.Name, tool.MetaApprovalRequired)
	kind, _ := e.reg.MetadataValue(c.Name, tool.MetaKind)
	if gated, _ := v.(bool); gated || kind == string(tool.KindUnapproved) {
		return false
	}
	// A keyed call is ordered against the response's other calls on its
	// key, which only the whole batch knows (tool.ResourceKey); a capped
	// call takes its slot in model order, which calls started each on its
	// own goroutine would race for (tool.Limiter).
	if e.reg.SoloSequentialReason(c.Name) != "" || e.reg.ResourceKeyed(c.Name) || e.reg.ConcurrencyLimited(c.Name) {
		return false
	}
	if e.r.limits.beforeToolCalls(e.r.usage.ToolCalls, len(e.calls)+1) != nil {
		return false
	}
	// The calls so far plus c decide the rest (a repeated name, the mix of
	// profiles), checked in constant time per call: a response of a
	// thousand calls re-checked every earlier call at each new one. A
	// refused call stops the eager calls, so it is never added twice.
	return e.check.Add(c) == ""
}

// drop cancels the started calls, waits for them and forgets their
// returns: the response that made them failed. drop on nil does nothing.
func (e *eager) drop() {
	if e == nil {
		return
	}
	e.cancel()
	e.wg.Wait()
}

// matches reports whether the started calls are the first calls of the
// response, as the Streamer contract promises.
func (e *eager) matches(calls []tool.Call) bool {
	if len(e.calls) > len(calls) {
		return false
	}
	for i, c := range e.calls {
		if c.ID != calls[i].ID || c.Name != calls[i].Name || !bytes.Equal(c.Arguments, calls[i].Arguments) {
			return false
		}
	}
	return true
}

// execute runs a response's calls and returns their returns in model
// order. Calls started early (early, maybe nil) are the batch's first
// calls; the others run as a batch of their own, at once when the whole
// response may run in parallel, otherwise in model order once the early
// ones have finished.
func (r *runner) execute(ctx context.Context, reg *tool.Registry, base *tool.Context, calls []tool.Call, early *eager) []tool.Return {
	if r.o.executor != nil {
		return r.offload(ctx, reg, base, nil, calls)
	}
	opts := tool.BatchOptions{Sequential: r.a.sequential, MaxConcurrency: r.a.maxConcurrency, Retries: r.retries,
		CallContext: batchContext(r.trace)}
	if early != nil && !early.matches(calls) {
		// The stream broke its contract: nothing of what it started can
		// stand for the response's calls.
		early.drop()
		early = nil
	}
	if early == nil {
		return reg.ExecuteBatch(ctx, base, calls, opts)
	}
	defer early.cancel()
	k := len(early.calls)
	out := make([]tool.Return, len(calls))
	if rest := calls[k:]; len(rest) > 0 {
		if reg.SequentialReason(calls, false) != "" {
			early.wg.Wait()
			opts.Sequential = true
		}
		copy(out[k:], reg.ExecuteBatch(ctx, base, rest, opts))
	}
	early.wg.Wait()
	for i, ret := range early.rets {
		out[i] = *ret
	}
	return out
}

// attemptRelay emits the failed attempts of one model request's fallback
// as model_fallback events while the request runs (a
// model.AttemptReporter in the model's context), so an observer sees the
// fallback before the next model's deltas. It counts what it emitted: the
// attempts the request ends with (Message.Attempts, a
// *model.FallbackError) are emitted after it only where nobody reported
// them live, as for a model an executor ran elsewhere.
type attemptRelay struct {
	r    *runner
	step int
	n    atomic.Int32
}

// ReportAttempt emits a, from the goroutine that asked the model.
func (a *attemptRelay) ReportAttempt(at model.Attempt) {
	a.n.Add(1)
	a.r.emit(Event{Kind: EventModelFallback, Step: a.step, Attempt: &at})
}

func (a *attemptRelay) emitted() int { return int(a.n.Load()) }

// into is ctx with the relay for the model's request; only the model's
// context carries it, so tools started early never report to the run.
func (a *attemptRelay) into(ctx context.Context) context.Context {
	if a == nil {
		return ctx
	}
	return model.WithAttemptReporter(ctx, a)
}
