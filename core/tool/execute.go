package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

var emptyObject = json.RawMessage(`{}`)

// Execute runs one call end to end and always returns its Return: unknown
// names, invalid JSON, schema mismatches, hook and validator rejections,
// panics, timeouts and cancellation all become typed error returns. base
// supplies the run-level fields of the tool context; it is not modified.
func (r *Registry) Execute(ctx context.Context, base *Context, call Call) Return {
	if len(call.Arguments) == 0 || string(call.Arguments) == "null" {
		call.Arguments = emptyObject
	}
	e, ok := r.entries[call.Name]
	if !ok {
		return ErrorReturn(call, &Error{Kind: ErrNotFound, Tool: call.Name, Message: fmt.Sprintf("tool %q is not registered for this run", call.Name)})
	}
	tc := r.callContext(e, base, call)

	var args map[string]any
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return ErrorReturn(call, InvalidArguments("tool arguments must be a JSON object, got %s", ute.Value))
		}
		return ErrorReturn(call, InvalidArguments("tool arguments must be valid JSON before execution: %v", err))
	}
	if args == nil {
		args = map[string]any{}
	}

	hooks := [2][]Hook{r.hooks, e.cfg.Hooks}
	touched := len(r.hooks) > 0 || len(e.cfg.Hooks) > 0 || len(e.cfg.Validators) > 0
	if err := runBefore(ctx, hooks, tc, args); err != nil {
		return ErrorReturn(call, err)
	}
	for _, v := range e.cfg.Validators {
		if err := v(tc, args); err != nil {
			var te *Error
			if !errors.As(err, &te) {
				te = InvalidArguments("%s", err.Error())
			}
			return ErrorReturn(call, te)
		}
	}
	if err := e.schema.Validate(args); err != nil {
		return ErrorReturn(call, err)
	}
	raw := call.Arguments
	if touched {
		b, err := json.Marshal(args)
		if err != nil {
			return ErrorReturn(call, UserError("hooks left arguments that are not JSON: %v", err))
		}
		raw = b
		call.Arguments = b
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
		if out.Err == nil {
			return SuccessReturn(call, out.Result)
		}
		if FlagsOf(KindOf(out.Err)).Unexpected && attempt < tc.MaxRetries && ctx.Err() == nil {
			continue
		}
		ret := ErrorReturn(call, out.Err)
		if FlagsOf(KindOf(out.Err)).Unexpected {
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
	ch := make(chan callOutcome, 1)
	go func() {
		res, err := safeCall(ctx, t, tc, args)
		ch <- callOutcome{res, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil && ctx.Err() != nil && (errors.Is(o.err, context.Canceled) || errors.Is(o.err, context.DeadlineExceeded)) {
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
func safeCall(ctx context.Context, t Tool, tc *Context, args json.RawMessage) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{}
			err = &Error{
				Kind:    ErrExecution,
				Message: fmt.Sprintf("tool panicked: %v", p),
				PrivateMetadata: map[string]any{
					"panic": fmt.Sprint(p),
					"stack": string(debug.Stack()),
				},
			}
		}
	}()
	return t.Call(ctx, tc, args)
}
