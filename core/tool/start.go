package tool

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// Starter is implemented by tools that begin a call without blocking and
// report its outcome later, such as tools answered by another process. Start
// must call done exactly once, from any goroutine, and promptly once ctx
// ends. A parallel batch starts these calls from its own goroutine and
// collects their outcomes as they arrive, instead of parking a goroutine
// (and growing its stack) for every call.
type Starter interface {
	Start(ctx context.Context, tc *Context, args json.RawMessage, done func(Result, error))
}

// startable reports whether calls to e take the started path: the tool is
// a Starter and no after-hooks must run (they are user code, and done may
// run on the goroutine that delivers every completion).
func (r *Registry) startable(e *entry) bool {
	_, ok := e.Tool.(Starter)
	return ok && len(r.hooks) == 0 && len(e.cfg.Hooks) == 0
}

// started is one call on the started path. Its attempts follow the same
// rules as Execute's: the timeout per attempt, internal re-execution of
// unexpected failures, and the same returns.
type started struct {
	r         *Registry
	e         *entry
	ctx       context.Context
	call      Call
	tc        *Context
	args      json.RawMessage
	timeout   time.Duration
	baseRetry int
	attempt   int
	dst       *Return
	wg        *sync.WaitGroup
}

// startInto prepares a call (as Execute does) and starts its first attempt;
// the call writes its Return to dst and calls wg.Done when it ends.
func (r *Registry) startInto(ctx context.Context, e *entry, base *Context, call Call, dst *Return, wg *sync.WaitGroup) {
	tc, args, err := r.safePrepare(ctx, e, base, call)
	if err != nil {
		*dst = ErrorReturn(call, err)
		wg.Done()
		return
	}
	s := &started{r: r, e: e, ctx: ctx, call: call, tc: tc, args: args, timeout: r.timeoutOf(e), baseRetry: tc.Retry, dst: dst, wg: wg}
	s.start()
}

// safePrepare is prepare with a panicking argument validator turned into
// an execution error, as in Execute.
func (r *Registry) safePrepare(ctx context.Context, e *entry, base *Context, call Call) (tc *Context, args json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			tc, args, err = nil, nil, panicError("a hook or argument validator", p)
		}
	}()
	return r.prepare(ctx, e, base, call)
}

func (s *started) start() {
	s.tc.Retry = s.baseRetry + s.attempt
	if s.ctx.Err() != nil {
		s.finish(Result{}, Cancelled("agent run cancellation requested"))
		return
	}
	actx, cancel := s.ctx, context.CancelFunc(func() {})
	if s.timeout > 0 {
		actx, cancel = context.WithTimeout(s.ctx, s.timeout)
	}
	var once sync.Once
	done := func(res Result, err error) {
		once.Do(func() {
			res, err = settle(s.ctx, actx, s.timeout, res, err)
			cancel()
			s.finish(res, err)
		})
	}
	defer func() {
		if p := recover(); p != nil {
			done(Result{}, panicError("the tool", p))
		}
	}()
	s.e.Tool.(Starter).Start(actx, s.tc, s.args, done)
}

// finish ends an attempt: success, another attempt after an unexpected
// failure within the budget, or the failure's return.
func (s *started) finish(res Result, err error) {
	if isNil(err) {
		*s.dst = SuccessReturn(s.call, res)
		s.wg.Done()
		return
	}
	if retryAgain(s.ctx, err, s.attempt, s.tc.MaxRetries) {
		s.attempt++
		s.start()
		return
	}
	*s.dst = failedReturn(s.call, err, s.attempt, s.tc.MaxRetries)
	s.wg.Done()
}
