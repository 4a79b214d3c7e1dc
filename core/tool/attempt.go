package tool

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// callRun is one call going through its preparation and its attempts:
// the single engine behind Execute (which starts a call and waits for
// it), Dispatch and a parallel batch (which starts many from one
// goroutine). The rules on hooks (hooks.go), per-attempt timeouts,
// cancellation, recovered panics and internal re-execution live here
// only.
//
// An attempt of a Starter completes through its done callback, from any
// goroutine, and the next attempt (if any) starts from there; its hooks
// hand the call on the same way (hooks.go), so a started call holds no
// goroutine while it waits. An attempt of any other tool completes before
// it returns, on the call's own goroutine, so run loops over those.
type callRun struct {
	r   *Registry
	e   *entry
	ctx context.Context
	// call holds the arguments as prepared for the tool, so that returns
	// record what the tool received.
	call Call
	// tc is the call's context; it lives here to save an allocation.
	tc         Context
	timeout    time.Duration
	baseRetry  int
	attempt    int
	afterHooks bool
	started    bool // attempts go through Starter.Start
	abandoned  bool // an attempt was abandoned (see slot)
	// The call's Return goes to dst, then wg.Done is called.
	dst *Return
	wg  *sync.WaitGroup
	// slot holds the attempt of a called tool on its own goroutine, made
	// once per call; once an attempt is abandoned, its goroutine may still
	// write it, and later attempts get their own. A started call has none:
	// kept out of callRun, it leaves every started call 224 bytes smaller.
	slot *attempt
	// live is 1 + the number of the started attempt whose done is awaited,
	// 0 when none is: done's outcome counts once, a late one is ignored.
	live atomic.Int64
	// asked holds the arguments as the model sent them (the journal
	// records them).
	asked json.RawMessage
	// The call's concurrency slots (concurrency.go): its tool's Limiter,
	// then its batch's cap, taken in that order; held counts the stages
	// passed, and wait is the call's place in a Limiter's queue.
	toolLimit, batchLimit *Limiter
	held                  int
	wait                  limitWaiter
	// batch, when set, is told when the call ends, so that the calls
	// waiting for its resource key start (batch.go).
	batch *batchRun
	index int
	// unprepared marks a call admitted before it is prepared, from base.
	unprepared bool
	base       *Context
	// dispatched marks a call of Context.Dispatch, which no
	// IntentRealiser wraps.
	dispatched bool
	// args holds the decoded arguments while before-hooks and validators
	// run (hooks.go); nil when there are none.
	args map[string]any
	// afterState holds an attempt's outcome while after-hooks run; made
	// only for a call that has them (its Outcomes are 368 bytes).
	*afterState
}

// afterState is an attempt's outcome, out, while after-hooks run; a
// control-flow outcome is only observed by them, through its copy view.
type afterState struct {
	out, view Outcome
	control   bool
}

// Messages shared by every path, so that a call's return does not depend
// on how it was scheduled.
const (
	cancelledMessage = "agent run cancellation requested"
	panickedTool     = "tool"
	panickedHook     = "a hook or argument validator"
)

// startInto prepares call and starts its first attempt. The call stores
// its Return in dst and then calls wg.Done, exactly once: before startInto
// returns for every tool that is not a Starter and for every journaled
// call (see Journal), otherwise possibly later and from another goroutine.
// owned says the current goroutine may block for the call (see before).
func (r *Registry) startInto(ctx context.Context, base *Context, call Call, dst *Return, wg *sync.WaitGroup, owned bool) {
	r.startRun(&callRun{}, ctx, base, call, dst, wg, owned)
}

// startRun is startInto with the call's state in c, which Execute
// allocates together with what it waits on.
func (r *Registry) startRun(c *callRun, ctx context.Context, base *Context, call Call, dst *Return, wg *sync.WaitGroup, owned bool) {
	e, ok := r.entries[call.Name]
	if !ok {
		c.dst, c.wg = dst, wg
		c.finish(ErrorReturn(call, r.missing(call.Name)))
		return
	}
	r.startEntry(c, e, ctx, base, call, dst, wg, owned)
}

// startEntry is startRun of the registered entry e, listed or not: it
// prepares the call (before-hooks, validators, schema) and then launches
// it, going on from wherever an asynchronous hook answers.
func (r *Registry) startEntry(c *callRun, e *entry, ctx context.Context, base *Context, call Call, dst *Return, wg *sync.WaitGroup, owned bool) {
	c.r, c.e, c.ctx, c.call, c.asked = r, e, ctx, call, call.Arguments
	c.dst, c.wg = dst, wg
	if err := c.prepareHead(base); err != nil {
		c.finish(ErrorReturn(call, err))
		return
	}
	c.before(0, owned)
}

// prepared launches a call whose before-hooks, validators and schema
// check passed, or ends it with err. Only a call that does not block
// (a started one) is launched from a goroutine that is not its own.
func (c *callRun) prepared(err error, owned bool) {
	if err != nil {
		// The Return of a refused call records what the model sent.
		c.call.Arguments = c.asked
		c.finish(ErrorReturn(c.call, err))
		return
	}
	switch {
	case !c.dispatched && c.r.intents != nil && !c.tc.Child():
		go c.realised(c.dst, c.wg) // see intents.go
	case !owned && c.blocking():
		go c.launch(c.dst, c.wg)
	default:
		c.launch(c.dst, c.wg)
	}
}

// launch starts the first attempt of a prepared call.
func (c *callRun) launch(dst *Return, wg *sync.WaitGroup) {
	c.dst, c.wg = dst, wg
	c.toolLimit = c.e.limiterOf()
	c.wait.g = c
	c.admit()
}

// admit takes the call's concurrency slots in order and begins the call
// once it holds them all. A slot that is not free queues the call, which
// goes on from granted.
func (c *callRun) admit() {
	for ; c.held < 2; c.held++ {
		l, ctx := c.toolLimit, c.ctx
		if c.held == 1 {
			// The batch's cap is held only by running calls of the batch,
			// which end with its context: no watch is needed.
			l, ctx = c.batchLimit, nil
		}
		if l != nil && !l.admit(ctx, &c.wait, c.cancelWait) {
			return
		}
	}
	if c.unprepared {
		// Admitted before it was prepared (batch.go): it is prepared
		// holding its slots, on its own goroutine unless it is started
		// (its hooks then run as hooks.go says).
		c.unprepared = false
		if c.r.starts(c.e) {
			c.r.startEntry(c, c.e, c.ctx, c.base, c.call, c.dst, c.wg, false)
			return
		}
		go c.r.startEntry(c, c.e, c.ctx, c.base, c.call, c.dst, c.wg, true)
		return
	}
	c.begin()
}

// granted is the call receiving the slot it waited for, on the goroutine
// that released it: a call that blocks gets its own goroutine.
func (c *callRun) granted() {
	c.held++
	if !c.unprepared && c.blocking() {
		go c.admit()
		return
	}
	c.admit()
}

// cancelWait ends a call whose run ended while it waited for its tool's
// slot (the first it takes: it holds none).
func (c *callRun) cancelWait() {
	c.finish(ErrorReturn(c.call, Cancelled(cancelledMessage)))
}

// blocking reports whether the call's attempts block the goroutine that
// begins them: it is not started, or it is journaled.
func (c *callRun) blocking() bool { return !c.started || c.r.journals(c.e) }

// begin starts the first attempt of an admitted call.
func (c *callRun) begin() {
	if c.r.journals(c.e) {
		c.journaled(c.asked)
		return
	}
	c.run()
}

// release gives back the slots the call holds, its batch's first.
func (c *callRun) release() {
	if c.held >= 2 && c.batchLimit != nil {
		c.batchLimit.Release()
	}
	if c.held >= 1 && c.toolLimit != nil {
		c.toolLimit.Release()
	}
	c.held = 0
}

// prepareHead does what comes before the before-hooks: it checks the
// arguments, applies the tool's Listed check, derives the call's context
// and settles how the call runs. A panic (of Listed, say) ends the call
// like a panicking hook does, instead of the process.
func (c *callRun) prepareHead(base *Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(panickedHook, p)
		}
	}()
	r, e, call := c.r, c.e, c.call
	raw, err := checkArguments(call.Arguments)
	if err != nil {
		return err
	}
	if e.cfg.Listed != nil && !e.cfg.Listed(listedContext(base)) {
		return UserError("tool %q is not loaded in this run step; discover it first (tool search)", call.Name)
	}
	r.callContext(&c.tc, e, base, call)
	// Projected values are materialised first, so that the destructive
	// policy's decider sees the arguments the tool would.
	if raw, err = c.project(raw); err != nil {
		return err
	}
	c.call.Arguments = raw
	if err := c.checkDestructive(); err != nil {
		return err
	}
	c.timeout = r.timeoutOf(e)
	c.baseRetry = c.tc.Retry
	c.afterHooks = len(r.hooks) > 0 || len(e.cfg.Hooks) > 0
	c.started = r.startable(e)
	if r.hooked(e) {
		// Hooks and validators work on decoded arguments; the tool and the
		// schema then see them re-encoded (validate). Without any, the
		// arguments are validated in place and never decoded here.
		c.args = parseValidObject(raw)
	}
	return nil
}

// validate runs the argument validators on the arguments the
// before-hooks left and checks the result against the tool's schema; the
// call then holds the arguments to hand to the tool.
func (c *callRun) validate() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(panickedHook, p)
		}
	}()
	raw := c.call.Arguments
	if c.r.hooked(c.e) {
		args := c.args
		c.args = nil
		for _, v := range c.e.cfg.Validators {
			if err := v(&c.tc, args); !isNil(err) {
				var te *Error
				if !errors.As(err, &te) || te == nil {
					te = InvalidArguments("%s", err.Error())
				}
				return te
			}
		}
		b, err := json.Marshal(args)
		if err != nil {
			return UserError("hooks left arguments that are not JSON: %v", err)
		}
		raw = b
	}
	if err := c.e.schema.validateJSON(raw); err != nil {
		return err
	}
	c.call.Arguments = raw
	return nil
}

// run makes attempts until one ends the call or one is started; a started
// attempt carries on from its done callback. The attempts of a call that
// is not started run on its own goroutine, which its after-hooks may
// block; a started call's run may be on any goroutine.
func (c *callRun) run() {
	for {
		c.tc.Retry = c.baseRetry + c.attempt
		var res Result
		var err error
		switch {
		case c.ctx.Err() != nil:
			err = Cancelled(cancelledMessage)
		case c.started:
			c.start()
			return
		default:
			res, err = c.callTool()
		}
		if !c.end(res, err, !c.started) {
			return
		}
	}
}

// end applies after-hooks to an attempt's outcome and then concludes it
// (see conclude): again reports that the caller makes the next attempt
// now. owned is as for before; when an after-hook goes on elsewhere, end
// returns false and the call goes on from there.
func (c *callRun) end(res Result, err error, owned bool) (again bool) {
	if !c.afterHooks {
		return c.conclude(res, err)
	}
	if c.afterState == nil {
		c.afterState = &afterState{}
	}
	c.out, c.control = Outcome{Result: res, Err: err}, isControlFlow(err)
	if c.control {
		c.view = c.out
	}
	return c.after(0, owned)
}

// conclude either ends the call with an attempt's outcome (after-hooks
// applied) or reports that another attempt follows: only unexpected
// failures are re-executed, within the budget, while the run goes on.
func (c *callRun) conclude(res Result, err error) (again bool) {
	if c.afterState != nil {
		c.out, c.view = Outcome{}, Outcome{}
	}
	res, err = c.checkIntents(res, err)
	err = c.checkPending(err)
	if isNil(err) {
		c.finish(c.r.successReturn(c.call, res))
		return false
	}
	kind := KindOf(err)
	cls := c.r.effectOf(c.e)
	if FlagsOf(kind).Unexpected && c.attempt < c.tc.MaxRetries && c.ctx.Err() == nil && effectclass.RetrySafe(cls, true) {
		c.attempt++
		return true
	}
	ret := failedReturn(c.call, err, c.attempt, c.tc.MaxRetries)
	if effectclass.FailsClosed(cls) && (FlagsOf(kind).Unexpected || kind == ErrorKindTimeout) {
		markAmbiguous(&ret, cls)
	}
	c.finish(ret)
	return false
}

// markAmbiguous tells whoever reads ret that its call failed in a way
// that leaves open whether it took effect, and that it was not re-run: a
// tool of class cls (which fails closed) must not be repeated blindly.
// Every idempotent write has a key (Context.IdempotencyKey), so only
// non-idempotent, destructive and unknown calls get here.
func markAmbiguous(ret *Return, cls EffectClass) {
	const fix = "Check whether the action happened before calling the tool again."
	prefix := "the call failed and may already have taken effect, so it was not retried (effect " + string(cls) + "): "
	msg, _ := ret.Metadata[MetaMessage].(string)
	ret.Metadata[MetaAmbiguous] = true
	ret.Metadata[MetaMessage] = prefix + msg
	ret.Metadata[MetaHowToFix] = fix
	if content, ok := ret.Content.(map[string]any); ok {
		content[MetaAmbiguous] = true
		content[MetaMessage] = prefix + msg
		content[MetaHowToFix] = fix
	}
}

// finish stores the call's Return, gives back its slots, lets the calls
// waiting for it on its resource key start, and then reports it done.
func (c *callRun) finish(ret Return) {
	*c.dst = ret
	c.release()
	if c.batch != nil {
		c.batch.finished(c.index)
	}
	c.wg.Done()
}

// attemptContext derives the context of one attempt: the call's context
// with the timeout, if any.
func (c *callRun) attemptContext() (context.Context, context.CancelFunc) {
	if c.timeout > 0 {
		return context.WithTimeout(c.ctx, c.timeout)
	}
	return c.ctx, func() {}
}

// start begins one attempt of a Starter. Its outcome, or the panic of
// Start, goes through settle and end exactly once; a later done call is
// ignored (see live: done then allocates nothing but itself).
func (c *callRun) start() {
	actx, cancel := c.attemptContext()
	live := int64(c.attempt) + 1
	c.live.Store(live)
	done := func(res Result, err error) {
		if !c.live.CompareAndSwap(live, 0) {
			return
		}
		if isNil(err) {
			err = nil
		}
		res, err = settle(c.ctx, actx, c.timeout, res, err)
		cancel()
		// done may run on a goroutine that delivers other calls'
		// outcomes: after-hooks must not block it (owned is false).
		if c.end(res, err, false) {
			c.run()
		}
	}
	defer func() {
		if p := recover(); p != nil {
			done(Result{}, panicError(panickedTool, p))
		}
	}()
	c.e.Tool.(Starter).Start(actx, &c.tc, c.call.Arguments, done)
}

// callTool runs one attempt of a tool that is not started, returning as
// soon as the attempt's context ends even if the tool ignores it. When
// after-hooks will run (and may change tc while an abandoned tool still
// reads it), the tool gets a copy of tc.
func (c *callRun) callTool() (Result, error) {
	ctx, cancel := c.attemptContext()
	defer cancel()
	t, tc := c.e.Tool, &c.tc
	if ctx.Done() == nil {
		return safeCall(ctx, t, tc, c.call.Arguments)
	}
	if co, ok := t.(Cooperative); ok && co.Cooperative() {
		res, err := safeCall(ctx, t, tc, c.call.Arguments)
		return settle(c.ctx, ctx, c.timeout, res, err)
	}
	if c.afterHooks {
		own := *tc
		tc = &own
	}
	if c.slot == nil || c.abandoned {
		c.slot = &attempt{}
	}
	a := c.slot
	*a = attempt{c: c, ctx: ctx, tc: tc, done: make(chan struct{})}
	go a.run()
	select {
	case <-a.done:
	case <-ctx.Done():
		c.abandoned = true
		return Result{}, ctxError(c.ctx, c.timeout)
	}
	return settle(c.ctx, ctx, c.timeout, a.res, a.err)
}

// attempt is one run of a tool on its own goroutine. The goroutine reads
// only fields of c that stay fixed once the call is prepared, writes res
// and err, then closes done; the caller reads them only after done is
// closed, and abandons them when the context ends first.
type attempt struct {
	c    *callRun
	ctx  context.Context
	tc   *Context
	res  Result
	err  error
	done chan struct{}
}

func (a *attempt) run() {
	a.res, a.err = safeCall(a.ctx, a.c.e.Tool, a.tc, a.c.call.Arguments)
	close(a.done)
}

// settle maps the outcome of an attempt whose context (actx, derived from
// parent with the timeout) may have ended. An unexpected failure or a
// cancellation once actx ended is the tool reacting to the timeout or the
// run's cancellation: report that, as for a tool abandoned when actx
// ended, whichever the tool saw first. A tool's own timeout error gets the
// effective timeout.
func settle(parent, actx context.Context, timeout time.Duration, res Result, err error) (Result, error) {
	if err == nil {
		return res, nil
	}
	if k := KindOf(err); actx.Err() != nil && (FlagsOf(k).Unexpected || k == ErrorKindCancelled) {
		return Result{}, ctxError(parent, timeout)
	}
	if te := AsError(err); te.Kind == ErrorKindTimeout && te.TimeoutMS == 0 {
		c := *te
		c.TimeoutMS = timeout.Milliseconds()
		return res, &c
	}
	return res, err
}

// ctxError is the error of an attempt whose context ended: the run's
// cancellation, or else the attempt's timeout.
func ctxError(parent context.Context, timeout time.Duration) error {
	if parent.Err() != nil {
		return Cancelled(cancelledMessage)
	}
	return Timeout(timeout.Milliseconds())
}
