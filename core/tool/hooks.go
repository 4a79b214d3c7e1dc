package tool

import (
	"context"
	"sync/atomic"
)

// Outcome is a call's result or error as after-hooks see it.
type Outcome struct {
	Result Result
	Err    error
}

// Hook wraps tool execution. Before runs once per call, before validation:
// global hooks first, then the tool's; it may change tc and args in place,
// and an error ends the call with that error's return (args hold numbers
// as json.Number, as for an ArgumentValidator). After runs after each
// attempt: the tool's hooks first, then global ones; it may change the
// outcome, and an error replaces it. Approval and deferred outcomes are
// control flow: After observes a copy of them and cannot replace them.
//
// StartBefore and StartAfter are the non-blocking forms of Before and
// After, for hooks answered elsewhere (by another process): each begins
// its phase and calls done exactly once, from any goroutine, and promptly
// once ctx ends; until then it may change tc and args (or out) as Before
// (or After) may, and never after. done may run user code and start other
// hooks or the tool, so it must not be called with a lock held. A Start
// form, when set, replaces the blocking one. A call whose tool is a
// Starter waits for them without holding a goroutine; any other call waits
// for done on its own goroutine.
//
// A call of a Starter runs Before and After (which may block) on a
// goroutine started for the phase, never on the goroutine that started
// the call or on the one that called the tool's done, so that neither a
// batch nor the delivery of other calls' outcomes waits for a hook.
type Hook struct {
	Name        string
	Before      func(ctx context.Context, tc *Context, args map[string]any) error
	After       func(ctx context.Context, tc *Context, out *Outcome) error
	StartBefore func(ctx context.Context, tc *Context, args map[string]any, done func(error))
	StartAfter  func(ctx context.Context, tc *Context, out *Outcome, done func(error))
}

func isControlFlow(err error) bool {
	k := KindOf(err)
	return k == ErrorKindApprovalRequired || k == ErrorKindCallDeferred
}

// The two phases of a hook.
const (
	phaseBefore = iota
	phaseAfter
)

// hookAt returns the call's i-th hook of a phase in the order the phase
// runs them (before: global, then the tool's; after: the tool's, then
// global), or nil past the last.
func (c *callRun) hookAt(phase, i int) *Hook {
	first, second := c.r.hooks, c.e.cfg.Hooks
	if phase == phaseAfter {
		first, second = second, first
	}
	if i < len(first) {
		return &first[i]
	}
	if i -= len(first); i < len(second) {
		return &second[i]
	}
	return nil
}

// hookStep is one started hook phase of a call: its done runs the rest of
// the call once, whichever of done and a panic of the Start form comes
// first (a later one is ignored).
type hookStep struct {
	c     *callRun
	i     int
	phase int
	fired atomic.Bool
}

// before runs the call's before-hooks from the i-th on, then its argument
// validators and schema check, and hands the outcome to prepared.
//
// owned says the current goroutine is the call's own, so it may block: a
// synchronous hook or validator runs on it, and otherwise on a goroutine
// started for the rest of the phase. A Start form is started and the call
// goes on from its done, wherever that runs; only a call that blocks
// anyway (its own goroutine will run the tool) waits for done instead.
func (c *callRun) before(i int, owned bool) {
	for ; ; i++ {
		h := c.hookAt(phaseBefore, i)
		if h == nil {
			break
		}
		switch {
		case h.StartBefore != nil:
			if owned && c.blocking() {
				err := waitHook(func(done func(error)) { h.StartBefore(c.ctx, &c.tc, c.args, done) })
				if pe, ok := err.(*panicked); ok {
					err = pe.err
				}
				if err != nil {
					c.prepared(err, owned)
					return
				}
				continue
			}
			s := &hookStep{c: c, i: i, phase: phaseBefore}
			defer s.recover()
			h.StartBefore(c.ctx, &c.tc, c.args, s.beforeDone)
			return
		case h.Before != nil:
			if !owned {
				go c.before(i, true)
				return
			}
			if err := callBefore(c.ctx, h, &c.tc, c.args); err != nil {
				c.prepared(err, owned)
				return
			}
		}
	}
	if len(c.e.cfg.Validators) > 0 && !owned {
		go c.before(i, true) // validators are user code that may block
		return
	}
	c.prepared(c.validate(), owned)
}

// beforeDone goes on with the hooks after the step's hook.
func (s *hookStep) beforeDone(err error) {
	if !s.fired.CompareAndSwap(false, true) {
		return
	}
	if !isNil(err) {
		s.c.prepared(err, false)
		return
	}
	s.c.before(s.i+1, false)
}

// afterDone applies the step's hook's error and goes on with the hooks
// after it, and then the call.
func (s *hookStep) afterDone(err error) {
	if !s.fired.CompareAndSwap(false, true) {
		return
	}
	s.c.applyAfter(err)
	if s.c.after(s.i+1, false) {
		s.c.run()
	}
}

// recover turns a panic of the step's Start form before done into the
// call's end, as for a panicking Before or After.
func (s *hookStep) recover() {
	if p := recover(); p != nil && s.fired.CompareAndSwap(false, true) {
		err := panicError(panickedHook, p)
		if s.phase == phaseBefore {
			s.c.prepared(err, false)
			return
		}
		s.c.finish(ErrorReturn(s.c.call, err))
	}
}

// after runs the after-hooks from the i-th on over the outcome in c.out,
// then concludes the attempt; again reports that the caller makes the next
// attempt now. owned is as for before. When a hook goes on elsewhere,
// after returns false and the call goes on from there.
func (c *callRun) after(i int, owned bool) (again bool) {
	for ; ; i++ {
		h := c.hookAt(phaseAfter, i)
		if h == nil {
			break
		}
		switch {
		case h.StartAfter != nil:
			if owned && c.blocking() {
				err := waitHook(func(done func(error)) { h.StartAfter(c.ctx, &c.tc, c.target(), done) })
				if pe, ok := err.(*panicked); ok {
					c.finish(ErrorReturn(c.call, pe.err))
					return false
				}
				c.applyAfter(err)
				continue
			}
			s := &hookStep{c: c, i: i, phase: phaseAfter}
			defer s.recover()
			h.StartAfter(c.ctx, &c.tc, c.target(), s.afterDone)
			return false
		case h.After != nil:
			if !owned {
				go func() {
					if c.after(i, true) {
						c.run()
					}
				}()
				return false
			}
			err := callAfter(c.ctx, h, &c.tc, c.target())
			if pe, ok := err.(*panicked); ok {
				// The hook, not the tool, failed: no other attempt.
				c.finish(ErrorReturn(c.call, pe.err))
				return false
			}
			c.applyAfter(err)
		}
	}
	return c.conclude(c.out.Result, c.out.Err)
}

// target is the outcome after-hooks change: the attempt's, or a copy of a
// control-flow outcome, which they only observe.
func (c *callRun) target() *Outcome {
	if c.control {
		return &c.view
	}
	return &c.out
}

// applyAfter makes an after-hook's error the outcome, unless it is
// control flow.
func (c *callRun) applyAfter(err error) {
	if !isNil(err) && !c.control {
		c.out.Result, c.out.Err = Result{}, err
	}
}

// panicked is the error of a hook that panicked, told apart from one it
// returned (an after-hook's panic ends the call; its error does not).
type panicked struct{ err *Error }

func (p *panicked) Error() string { return p.err.Error() }

func callBefore(ctx context.Context, h *Hook, tc *Context, args map[string]any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(panickedHook, p)
		}
	}()
	if err = h.Before(ctx, tc, args); isNil(err) {
		return nil
	}
	return err
}

func callAfter(ctx context.Context, h *Hook, tc *Context, out *Outcome) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicked{panicError(panickedHook, p)}
		}
	}()
	return h.After(ctx, tc, out)
}

// waitHook runs a hook's Start form and waits for its done, on a call's
// own goroutine; the wait ends because done must be called promptly once
// the call's context ends. A panic before done is the panic's error,
// wrapped in panicked.
func waitHook(start func(done func(error))) (err error) {
	ch := make(chan error, 1)
	var fired atomic.Bool
	done := func(err error) {
		if fired.CompareAndSwap(false, true) {
			ch <- err
		}
	}
	func() {
		defer func() {
			if p := recover(); p != nil && fired.CompareAndSwap(false, true) {
				ch <- &panicked{panicError(panickedHook, p)}
			}
		}()
		start(done)
	}()
	if err = <-ch; isNil(err) {
		return nil
	}
	return err
}
