package tool

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/starweaver-go/starweaver/core/effect"
)

// callRun is one prepared call going through its attempts: the single
// engine behind Execute (which starts a call and waits for it) and a
// parallel batch (which starts many from one goroutine). The rules on
// per-attempt timeouts, cancellation, after-hooks, recovered panics and
// internal re-execution live here only.
//
// An attempt of a Starter completes through its done callback, from any
// goroutine, and the next attempt (if any) starts from there. An attempt
// of any other tool completes before it returns, so run loops over those.
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
	// slot holds the attempt of a called tool on its own goroutine, saving
	// an allocation per call; once an attempt is abandoned, its goroutine
	// may still write it, and later attempts get their own.
	slot attempt
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
func (r *Registry) startInto(ctx context.Context, base *Context, call Call, dst *Return, wg *sync.WaitGroup) {
	r.startRun(&callRun{}, ctx, base, call, dst, wg)
}

// startRun is startInto with the call's state in c, which Execute
// allocates together with what it waits on.
func (r *Registry) startRun(c *callRun, ctx context.Context, base *Context, call Call, dst *Return, wg *sync.WaitGroup) {
	if err := r.prepareRun(c, ctx, base, call); err != nil {
		c.dst, c.wg = dst, wg
		c.finish(ErrorReturn(call, err))
		return
	}
	if r.intents != nil && !c.tc.Child() {
		go c.realised(call, dst, wg) // see intents.go
		return
	}
	c.launch(call, dst, wg)
}

// launch starts the first attempt of a prepared call.
func (c *callRun) launch(call Call, dst *Return, wg *sync.WaitGroup) {
	c.dst, c.wg = dst, wg
	c.asked = call.Arguments
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
		// Admitted before it was prepared (batch.go): it is prepared and
		// runs on its own goroutine, holding its slots.
		c.unprepared = false
		go c.r.startRun(c, c.ctx, c.base, c.call, c.dst, c.wg)
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

// prepareRun fills c for call: the entry, the call's context and the
// arguments that passed hooks, validators and the schema. A panicking
// before-hook or validator ends the call like a panicking tool does,
// instead of the process.
func (r *Registry) prepareRun(c *callRun, ctx context.Context, base *Context, call Call) error {
	e, ok := r.entries[call.Name]
	if !ok {
		return r.missing(call.Name)
	}
	return r.prepareEntry(c, e, ctx, base, call)
}

// prepareEntry is prepareRun of the registered entry e, listed or not.
func (r *Registry) prepareEntry(c *callRun, e *entry, ctx context.Context, base *Context, call Call) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(panickedHook, p)
		}
	}()
	args, err := r.prepare(ctx, e, base, call, &c.tc)
	if err != nil {
		return err
	}
	c.r, c.e, c.ctx, c.call = r, e, ctx, call
	c.call.Arguments = args
	c.timeout = r.timeoutOf(e)
	c.baseRetry = c.tc.Retry
	c.afterHooks = len(r.hooks) > 0 || len(e.cfg.Hooks) > 0
	c.started = r.startable(e)
	return nil
}

// run makes attempts until one ends the call or one is started; a started
// attempt carries on from its done callback.
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
		if !c.end(res, err) {
			return
		}
	}
}

// end applies after-hooks to an attempt's outcome and either ends the call
// or reports that another attempt follows: only unexpected failures are
// re-executed, within the budget, while the run goes on.
func (c *callRun) end(res Result, err error) (again bool) {
	if c.afterHooks {
		var ok bool
		if res, err, ok = c.runAfter(res, err); !ok {
			c.finish(ErrorReturn(c.call, err))
			return false
		}
	}
	res, err = c.checkIntents(res, err)
	if isNil(err) {
		c.finish(c.r.successReturn(c.call, res))
		return false
	}
	kind := KindOf(err)
	cls := c.r.effectOf(c.e)
	if FlagsOf(kind).Unexpected && c.attempt < c.tc.MaxRetries && c.ctx.Err() == nil && effect.RetrySafe(cls, true) {
		c.attempt++
		return true
	}
	ret := failedReturn(c.call, err, c.attempt, c.tc.MaxRetries)
	if effect.FailsClosed(cls) && (FlagsOf(kind).Unexpected || kind == ErrorKindTimeout) {
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
func markAmbiguous(ret *Return, cls effect.Class) {
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

// runAfter runs the after-hooks on an outcome; ok is false when one
// panicked, and err is then the panic's error, which ends the call without
// another attempt (the hook, not the tool, failed).
func (c *callRun) runAfter(res Result, err error) (_ Result, _ error, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			err, ok = panicError(panickedHook, p), false
		}
	}()
	out := &Outcome{Result: res, Err: err}
	runAfter(c.ctx, [2][]Hook{c.r.hooks, c.e.cfg.Hooks}, &c.tc, out)
	return out.Result, out.Err, true
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
// ignored.
func (c *callRun) start() {
	actx, cancel := c.attemptContext()
	var once sync.Once
	done := func(res Result, err error) {
		once.Do(func() {
			if isNil(err) {
				err = nil
			}
			res, err = settle(c.ctx, actx, c.timeout, res, err)
			cancel()
			if c.end(res, err) {
				c.run()
			}
		})
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
	a := &c.slot
	if c.abandoned {
		a = &attempt{}
	}
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
