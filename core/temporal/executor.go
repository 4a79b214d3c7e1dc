package temporal

import (
	"context"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// executor is the agent.Executor of a run inside a workflow: every model
// request and every call becomes an activity. Its methods run in the
// workflow coroutine and block it (Future.Get), which is how a workflow
// waits; the context.Context the loop passes is not the workflow's and is
// not used.
type executor struct {
	t   *Agent
	ctx workflow.Context
}

var _ agent.Executor = (*executor)(nil)

func (x *executor) RequestModel(_ context.Context, req agent.ModelRequest) (model.Message, error) {
	ctx := workflow.WithActivityOptions(x.ctx, x.t.modelOptions(req))
	var resp model.Message
	if err := workflow.ExecuteActivity(ctx, x.t.ModelActivityName(), req).Get(ctx, &resp); err != nil {
		return model.Message{}, modelFailure(err)
	}
	return resp, nil
}

// RunBatch schedules one activity per call (a child workflow for a
// call that runs a child agent, see ChildWorkflow), in model order: all at once,
// at most MaxConcurrency at once (the next starts when the oldest in
// flight ends, which keeps the order of commands fixed), or one after
// another for a sequential batch. A failed activity gives its call
// agent.LostReturn.
func (x *executor) RunBatch(rctx context.Context, b agent.Batch) ([]tool.Return, error) {
	n := len(b.Calls)
	window := n
	switch {
	case b.Sequential:
		window = 1
	case b.MaxConcurrency > 0 && b.MaxConcurrency < n:
		window = b.MaxConcurrency
	}
	futures := make([]workflow.Future, n)
	start := func(i int) {
		if b.Calls[i].Child != nil {
			futures[i] = x.startChild(b, b.Calls[i])
			return
		}
		one := b
		one.Calls = []agent.Call{b.Calls[i]}
		ctx := workflow.WithActivityOptions(x.ctx, x.t.callOptions(b.Calls[i]))
		futures[i] = workflow.ExecuteActivity(ctx, x.t.ToolActivityName(), one)
	}
	for i := range window {
		start(i)
	}
	out := make([]tool.Return, n)
	for i, c := range b.Calls {
		if c.Child != nil {
			out[i] = x.childReturn(rctx, futures[i], c)
		} else if err := futures[i].Get(x.ctx, &out[i]); err != nil {
			workflow.GetLogger(x.ctx).Warn("starweaver: a tool call's activity failed; the model gets the lost-call return",
				"tool", c.Name, "call", c.ID, "error", err)
			out[i] = agent.LostReturn(c.Call)
		}
		if next := i + window; next < n {
			start(next)
		}
	}
	return out, nil
}

// modelOptions are the activity options of a model request.
func (t *Agent) modelOptions(req agent.ModelRequest) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:           t.o.TaskQueue,
		StartToCloseTimeout: t.o.StartToCloseTimeout,
		HeartbeatTimeout:    t.o.HeartbeatTimeout,
		RetryPolicy:         t.o.RetryPolicy,
		Summary:             fmt.Sprintf("model request, step %d", req.Step),
	}
}

// callOptions are the activity options of one call (see the package
// doc).
func (t *Agent) callOptions(c agent.Call) workflow.ActivityOptions {
	timeout := t.o.StartToCloseTimeout
	if bound := c.AttemptBound(); bound > 0 {
		timeout = bound + t.o.TimeoutGrace
	}
	return workflow.ActivityOptions{
		TaskQueue:           t.o.TaskQueue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    t.o.HeartbeatTimeout,
		RetryPolicy:         retryPolicy(c, t.o.RetryPolicy),
		Summary:             fmt.Sprintf("tool %s, call %s", c.Name, c.ID),
	}
}

// retryPolicy maps a call's effect to its activity's retries: a
// retry-safe call retries with safe, any other call gets one attempt
// (its worker's loss leaves its effect unknown, and running it again
// could do it twice).
func retryPolicy(c agent.Call, safe *sdktemporal.RetryPolicy) *sdktemporal.RetryPolicy {
	if c.RetrySafe {
		return safe
	}
	return &sdktemporal.RetryPolicy{MaximumAttempts: 1}
}

// remoteModelError is a model error that crossed Temporal: its text is
// the worker's, errors.Is(err, model.ErrModel) holds, and a provider's
// error, or a fallback's (*model.FallbackError, with the provider error
// of each attempt), is there for errors.As.
type remoteModelError struct {
	msg   string
	cause error
}

func (e *remoteModelError) Error() string { return e.msg }

func (e *remoteModelError) Is(target error) bool { return target == model.ErrModel }

func (e *remoteModelError) Unwrap() error { return e.cause }

// modelFailure is the error the loop gets for a failed model activity.
func modelFailure(err error) error {
	var app *sdktemporal.ApplicationError
	if errors.As(err, &app) && (app.Type() == errModel || app.Type() == errFallback) {
		out := &remoteModelError{msg: app.Message()}
		if app.HasDetails() && app.Type() == errFallback {
			var fb fallbackFailure
			if app.Details(&fb) == nil {
				out.cause = fb.rebuild()
			}
		} else if app.HasDetails() {
			var pe model.ProviderError
			if app.Details(&pe) == nil {
				out.cause = &pe
			}
		}
		return out
	}
	return fmt.Errorf("temporal: the model request's activity failed: %w", err)
}

// rebuild is the *model.FallbackError f describes: each attempt's error
// is a model error with the attempt's text and provider error.
func (f *fallbackFailure) rebuild() *model.FallbackError {
	errs := make([]error, len(f.Attempts))
	for i, a := range f.Attempts {
		e := &remoteModelError{msg: a.Error}
		if i < len(f.Providers) && f.Providers[i] != nil {
			e.cause = f.Providers[i]
		}
		errs[i] = e
	}
	return model.NewFallbackError(f.Attempts, errs)
}
