package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Execute runs one call end to end and always returns its Return: unknown
// names, invalid JSON, schema mismatches, hook and validator rejections,
// panics, timeouts and cancellation all become typed error returns. base
// supplies the run-level fields of the tool context; it is not modified.
//
// Arguments are decoded with json.Number for numbers, so hooks and
// validators see numbers exactly as the model wrote them, and arguments
// re-encoded after a hook or validator changed them keep their precision.
func (r *Registry) Execute(ctx context.Context, base *Context, call Call) (ret Return) {
	// Execute and its helpers keep one ErrorReturn call site each: every
	// site reserves room for a Return in the frame, and a small frame
	// spares the goroutines of a parallel batch from growing their stacks.
	if ctx == nil {
		ctx = context.Background()
	}
	e, ok := r.entries[call.Name]
	var tc *Context
	var err error
	if !ok {
		err = &Error{Kind: ErrNotFound, Tool: call.Name, Message: fmt.Sprintf("tool %q is not registered for this run", call.Name)}
	} else {
		// Hooks and validators are user code too: a panic in one of them
		// ends the call like a panicking tool does, instead of the process.
		defer func() {
			if p := recover(); p != nil {
				ret = ErrorReturn(call, panicError("a hook or argument validator", p))
			}
		}()
		tc, call.Arguments, err = r.prepare(ctx, e, base, call)
	}
	attempt := -1
	if err == nil {
		var res Result
		res, attempt, err = r.attempts(ctx, e, tc, call.Arguments)
		if err == nil {
			return SuccessReturn(call, res)
		}
	}
	maxRetries := 0
	if tc != nil {
		maxRetries = tc.MaxRetries
	}
	return failedReturn(call, err, attempt, maxRetries)
}

// retryAgain reports whether a failed attempt is re-executed: only
// unexpected failures, within the budget, while the run goes on.
func retryAgain(ctx context.Context, err error, attempt, maxRetries int) bool {
	return FlagsOf(KindOf(err)).Unexpected && attempt < maxRetries && ctx.Err() == nil
}

// failedReturn is the Return of a call that failed with err; attempt is the
// number of its last attempt, -1 when none ran. Exhausted unexpected
// failures carry their retry counts.
func failedReturn(call Call, err error, attempt, maxRetries int) Return {
	ret := ErrorReturn(call, err)
	if attempt >= 0 && FlagsOf(KindOf(err)).Unexpected {
		ret.Metadata["tool_retry"] = attempt
		ret.Metadata["max_retries"] = maxRetries
		ret.Content.(map[string]any)["tool_retry"] = attempt
		ret.Content.(map[string]any)["max_retries"] = maxRetries
	}
	return ret
}

// prepare does everything before the first attempt: it checks the
// arguments, derives the call's context, runs before-hooks and argument
// validators, and validates the arguments against the schema. It returns
// the arguments to hand to the tool.
func (r *Registry) prepare(ctx context.Context, e *entry, base *Context, call Call) (*Context, json.RawMessage, error) {
	raw, err := checkArguments(call.Arguments)
	if err != nil {
		return nil, nil, err
	}
	call.Arguments = raw
	tc := r.callContext(e, base, call)
	if len(r.hooks) > 0 || len(e.cfg.Hooks) > 0 || len(e.cfg.Validators) > 0 {
		// Hooks and validators work on decoded arguments; the tool and the
		// schema then see them re-encoded. Without any, the arguments are
		// validated in place and never decoded here.
		args := parseValidObject(raw)
		if err := runBefore(ctx, [2][]Hook{r.hooks, e.cfg.Hooks}, tc, args); err != nil {
			return nil, nil, err
		}
		for _, v := range e.cfg.Validators {
			if err := v(tc, args); !isNil(err) {
				var te *Error
				if !errors.As(err, &te) || te == nil {
					te = InvalidArguments("%s", err.Error())
				}
				return nil, nil, te
			}
		}
		b, err := json.Marshal(args)
		if err != nil {
			return nil, nil, UserError("hooks left arguments that are not JSON: %v", err)
		}
		raw = b
	}
	if err := e.schema.validateJSON(raw); err != nil {
		return nil, nil, err
	}
	return tc, raw, nil
}

// attempts runs the tool, re-running it after unexpected failures within
// the retry budget, with after-hooks after every attempt. It returns the
// outcome of the last attempt and its number.
func (r *Registry) attempts(ctx context.Context, e *entry, tc *Context, args json.RawMessage) (res Result, attempt int, err error) {
	timeout := r.timeoutOf(e)
	afterHooks := len(r.hooks) > 0 || len(e.cfg.Hooks) > 0
	baseRetry := tc.Retry
	for ; ; attempt++ {
		tc.Retry = baseRetry + attempt
		if ctx.Err() != nil {
			res, err = Result{}, Cancelled("agent run cancellation requested")
		} else {
			res, err = attemptCall(ctx, e.Tool, tc, args, timeout, afterHooks)
		}
		if afterHooks {
			out := &Outcome{Result: res, Err: err}
			runAfter(ctx, [2][]Hook{r.hooks, e.cfg.Hooks}, tc, out)
			res, err = out.Result, out.Err
		}
		if isNil(err) {
			return res, attempt, nil
		}
		if !retryAgain(ctx, err, attempt, tc.MaxRetries) {
			return Result{}, attempt, err
		}
	}
}

// callContext derives the call's own context from base, narrowing the
// dependencies to what the tool's profile allows.
func (r *Registry) callContext(e *entry, base *Context, call Call) *Context {
	tc := &Context{}
	if base != nil {
		*tc = *base
	}
	tc.ToolCallID = call.ID
	tc.ToolName = call.Name
	tc.MaxRetries = r.maxRetriesOf(e)
	switch e.deps.Profile {
	case ProfileStrict:
		tc.Deps = tc.Deps.only(e.deps.HostCapabilities)
	case ProfileFiltered:
		tc.Deps = tc.Deps.filtered(e.deps.HostCapabilities)
	}
	return tc
}

// attempt is one run of a tool on its own goroutine. The goroutine writes
// res and err, then closes done; the caller reads them only after done is
// closed, and abandons them when the context ends first.
type attempt struct {
	ctx  context.Context
	tool Tool
	tc   *Context
	args json.RawMessage
	res  Result
	err  error
	done chan struct{}
}

func (a *attempt) run() {
	a.res, a.err = safeCall(a.ctx, a.tool, a.tc, a.args)
	close(a.done)
}

// attemptCall runs one attempt under the timeout, returning as soon as the
// context ends even if the tool ignores it. When after-hooks will run (and
// may change tc while an abandoned tool still reads it), the tool gets a
// copy of tc.
func attemptCall(ctx context.Context, t Tool, tc *Context, args json.RawMessage, timeout time.Duration, copyContext bool) (Result, error) {
	parent := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if ctx.Done() == nil {
		return safeCall(ctx, t, tc, args)
	}
	if c, ok := t.(Cooperative); ok && c.Cooperative() {
		res, err := safeCall(ctx, t, tc, args)
		return settle(parent, ctx, timeout, res, err)
	}
	if copyContext {
		own := *tc
		tc = &own
	}
	a := &attempt{ctx: ctx, tool: t, tc: tc, args: args, done: make(chan struct{})}
	go a.run()
	select {
	case <-a.done:
	case <-ctx.Done():
		return Result{}, ctxError(parent, timeout)
	}
	return settle(parent, ctx, timeout, a.res, a.err)
}

// settle maps the outcome of an attempt whose context (actx, derived from
// parent with the timeout) may have ended. An unexpected failure once actx
// ended is the tool reacting to the timeout or the cancellation: report
// that, whichever the tool saw first. A tool's own timeout error gets the
// effective timeout.
func settle(parent, actx context.Context, timeout time.Duration, res Result, err error) (Result, error) {
	if err == nil {
		return res, nil
	}
	if actx.Err() != nil && FlagsOf(KindOf(err)).Unexpected {
		return Result{}, ctxError(parent, timeout)
	}
	if te := AsError(err); te.Kind == ErrTimeout && te.TimeoutMS == 0 {
		c := *te
		c.TimeoutMS = timeout.Milliseconds()
		return res, &c
	}
	return res, err
}

func ctxError(parent context.Context, timeout time.Duration) error {
	if parent.Err() != nil {
		return Cancelled("agent run cancellation requested")
	}
	return Timeout(timeout.Milliseconds())
}

// safeCall turns a panicking tool into an execution error whose stack stays
// in private metadata.
// A typed nil *Error returned as the error means success.
func safeCall(ctx context.Context, t Tool, tc *Context, args json.RawMessage) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, panicError("tool", p)
		}
	}()
	res, err = t.Call(ctx, tc, args)
	if isNil(err) {
		err = nil
	}
	return res, err
}

// panicError is the execution error of a recovered panic; the stack goes
// to private metadata only.
func panicError(what string, p any) *Error {
	return &Error{
		Kind:    ErrExecution,
		Message: fmt.Sprintf("%s panicked: %v", what, p),
		PrivateMetadata: map[string]any{
			"panic": fmt.Sprint(p),
			"stack": string(debug.Stack()),
		},
	}
}
