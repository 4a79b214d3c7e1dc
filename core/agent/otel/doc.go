// Package otel traces agent runs with OpenTelemetry: its Tracer is an
// agent.Tracer that turns a run's events into spans following the GenAI
// semantic conventions (invoke_agent, chat and execute_tool spans), and
// WithTracer is the run option that uses it:
//
//	a.Run(ctx, prompt, otel.WithTracer(tp))
//
// Tool arguments and results are recorded only when Tracer.Content is set
// (agent.WithTracing(otel.Tracer{Provider: tp, Content: true})). It keeps
// core/agent free of the OpenTelemetry module: the agent owns the Tracer
// interface, this package implements it.
package otel
