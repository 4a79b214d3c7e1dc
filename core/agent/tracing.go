package agent

import (
	"context"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Tracer traces runs: core/agent/otel's Tracer makes OpenTelemetry spans
// following the GenAI conventions. Give one to a run with WithTracing.
//
// It is a run option rather than a Builder setting because a tracer
// belongs to the caller's process setup, like WithEvents. Without one a
// run traces nothing and pays nothing.
type Tracer interface {
	// StartRun is called as a run (or a resume) starts, with the run's
	// context, and returns the run's trace; nil traces nothing.
	StartRun(ctx context.Context, run TracedRun) RunTrace
}

// TracedRun describes a run to its Tracer.
type TracedRun struct {
	// AgentName is the agent's name ("" when it has none).
	AgentName string
	// Model is the model's name when the model says it up front ("" when
	// it does not: the responses then say which model answered).
	Model string
}

// RunTrace follows one run. The loop calls its methods from one goroutine
// (events are delivered after the run's WithEvents handlers), so it needs
// no lock.
type RunTrace interface {
	// Event receives every event of the run; the run's end events
	// (run_complete, run_failed, run_cancelled, run_waiting) end it.
	Event(ev Event)
	// Response receives each model response.
	Response(resp model.Message)
	// ChatContext returns the context the next model request is made
	// with, derived from ctx.
	ChatContext(ctx context.Context) context.Context
	// CallContext returns the context call c runs with, derived from ctx;
	// a call may start before its tool_call event (eager dispatch).
	CallContext(ctx context.Context, c tool.Call) context.Context
}

// WithTracing traces the run with t (see Tracer).
func WithTracing(t Tracer) RunOption {
	return func(o *runOptions) { o.tracer = t }
}

// startTrace starts the run's trace, or returns nil when o has no tracer.
func startTrace(ctx context.Context, a *Agent, o *runOptions) RunTrace {
	if o.tracer == nil {
		return nil
	}
	run := TracedRun{AgentName: a.name}
	if n, ok := a.model.(interface{ Name() string }); ok {
		run.Model = n.Name()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return o.tracer.StartRun(ctx, run)
}

// traceResponse hands resp to the run's trace, if any.
func traceResponse(t RunTrace, resp model.Message) {
	if t != nil {
		t.Response(resp)
	}
}

// chatContext is the context of a model request: ctx, or the trace's.
func chatContext(ctx context.Context, t RunTrace) context.Context {
	if t == nil {
		return ctx
	}
	return t.ChatContext(ctx)
}

// batchContext is the BatchOptions.CallContext of a run; nil when the run
// is not traced.
func batchContext(t RunTrace) func(context.Context, tool.Call) context.Context {
	if t == nil {
		return nil
	}
	return t.CallContext
}
