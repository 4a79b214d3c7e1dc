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
	if ctx == nil {
		ctx = context.Background()
	}
	e, ok := r.entries[call.Name]
	if !ok {
		return ErrorReturn(call, &Error{Kind: ErrNotFound, Tool: call.Name, Message: fmt.Sprintf("tool %q is not registered for this run", call.Name)})
	}
	// Hooks and validators are user code too: a panic in one of them ends
	// the call like a panicking tool does, instead of the process.
	defer func() {
		if p := recover(); p != nil {
			ret = ErrorReturn(call, panicError("a hook or argument validator", p))
		}
	}()

	raw, err := checkArguments(call.Arguments)
	if err != nil {
		return ErrorReturn(call, err)
	}
	call.Arguments = raw
	tc := r.callContext(e, base, call)

	hooks := [2][]Hook{r.hooks, e.cfg.Hooks}
	if len(r.hooks) > 0 || len(e.cfg.Hooks) > 0 || len(e.cfg.Validators) > 0 {
		// Hooks and validators work on decoded arguments; the tool and the
		// schema then see them re-encoded. Without any, the arguments are
		// validated in place and never decoded here.
		args := parseValidObject(raw)
		if err := runBefore(ctx, hooks, tc, args); err != nil {
			return ErrorReturn(call, err)
		}
		for _, v := range e.cfg.Validators {
			if err := v(tc, args); !isNil(err) {
				var te *Error
				if !errors.As(err, &te) || te == nil {
					te = InvalidArguments("%s", err.Error())
				}
				return ErrorReturn(call, te)
			}
		}
		b, err := json.Marshal(args)
		if err != nil {
			return ErrorReturn(call, UserError("hooks left arguments that are not JSON: %v", err))
		}
		raw = b
		call.Arguments = b
	}
	if err := e.schema.validateJSON(raw); err != nil {
		return ErrorReturn(call, err)
	}

	timeout := r.TimeoutFor(call.Name)
	baseRetry := tc.Retry
	for attempt := 0; ; attempt++ {
		tc.Retry = baseRetry + attempt
		var out Outcome
		if ctx.Err() != nil {
			out.Err = Cancelled("agent run cancellation requested")
		} else {
			out.Result, out.Err = attemptCall(ctx, e.Tool, tc, raw, timeout)
		}
		runAfter(ctx, hooks, tc, &out)
		if isNil(out.Err) {
			return SuccessReturn(call, out.Result)
		}
		unexpected := FlagsOf(KindOf(out.Err)).Unexpected
		if unexpected && attempt < tc.MaxRetries && ctx.Err() == nil {
			continue
		}
		ret := ErrorReturn(call, out.Err)
		if unexpected {
			ret.Metadata["tool_retry"] = attempt
			ret.Metadata["max_retries"] = tc.MaxRetries
			ret.Content.(map[string]any)["tool_retry"] = attempt
			ret.Content.(map[string]any)["max_retries"] = tc.MaxRetries
		}
		return ret
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
	tc.MaxRetries = r.MaxRetriesFor(call.Name)
	switch e.deps.Profile {
	case ProfileStrict:
		tc.Deps = tc.Deps.only(e.deps.HostCapabilities)
	case ProfileFiltered:
		tc.Deps = tc.Deps.filtered(e.deps.HostCapabilities)
	}
	return tc
}

type callOutcome struct {
	res Result
	err error
}

// attemptCall runs one attempt under the timeout, returning as soon as the
// context ends even if the tool ignores it.
func attemptCall(ctx context.Context, t Tool, tc *Context, args json.RawMessage, timeout time.Duration) (Result, error) {
	parent := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if ctx.Done() == nil {
		return safeCall(ctx, t, tc, args)
	}
	// The tool gets its own copy of the context: if it outlives the
	// attempt, later changes (after-hooks, the next attempt) cannot race
	// with it.
	own := *tc
	ch := make(chan callOutcome, 1)
	go func() {
		res, err := safeCall(ctx, t, &own, args)
		ch <- callOutcome{res, err}
	}()
	select {
	case o := <-ch:
		// An unexpected failure once the attempt's context has ended is
		// the tool reacting to the timeout or cancellation: report that,
		// whichever of the two the select happened to see first.
		if o.err != nil && ctx.Err() != nil && FlagsOf(KindOf(o.err)).Unexpected {
			return Result{}, ctxError(parent, timeout)
		}
		if te := (*Error)(nil); errors.As(o.err, &te) && te.Kind == ErrTimeout && te.TimeoutMS == 0 {
			c := *te
			c.TimeoutMS = timeout.Milliseconds()
			return o.res, &c
		}
		return o.res, o.err
	case <-ctx.Done():
		return Result{}, ctxError(parent, timeout)
	}
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
