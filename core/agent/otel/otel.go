package otel

import (
	"context"
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Attribute keys of the OpenTelemetry GenAI semantic conventions, plus the
// one this runtime adds (the correction count of a tool call, which the
// conventions have no name for).
const (
	attrOperation     = "gen_ai.operation.name"
	attrAgentName     = "gen_ai.agent.name"
	attrRequestModel  = "gen_ai.request.model"
	attrResponseModel = "gen_ai.response.model"
	attrProvider      = "gen_ai.provider.name"
	attrSystem        = "gen_ai.system" // the older name of gen_ai.provider.name, still read by many backends
	attrFinishReasons = "gen_ai.response.finish_reasons"
	attrInputTokens   = "gen_ai.usage.input_tokens"
	attrOutputTokens  = "gen_ai.usage.output_tokens"
	attrToolName      = "gen_ai.tool.name"
	attrToolCallID    = "gen_ai.tool.call.id"
	attrToolArguments = "gen_ai.tool.call.arguments"
	attrToolResult    = "gen_ai.tool.call.result"
	attrRunID         = "starweaver.run_id"
	attrToolRetry     = "starweaver.tool.retry"
	attrToolPaused    = "starweaver.tool.paused"
	attrErrorType     = "error.type"
)

// tracerScope names the instrumentation scope of the spans (the agent's
// package, where the spans are made from).
const tracerScope = "github.com/starweaver-go/starweaver/core/agent"

// Tracer is an agent.Tracer that traces runs with spans of Provider,
// following the OpenTelemetry GenAI conventions: "invoke_agent {agent}"
// for the run (a resumed run gets a span of its own), with a child
// "chat {model}" per model request and a child "execute_tool {tool}" per
// tool call. The run span's parent is the span active in the run's
// context. Tool arguments and results are left out unless Content opts
// in.
//
// Give it to a run with agent.WithTracing (or WithTracer): the provider
// belongs to the caller's process setup, like agent.WithEvents. Spans
// created inside models and tools parent to the caller's span, not to
// these: the run hands its context to them unchanged.
//
// The spans are made from the run's events. The calls of one response
// report their returns together, so the execute_tool spans of parallel
// calls end together. A tool.Hook could time each call, but a hook makes
// the registry re-encode every call's arguments and turns off the Starter
// path, so tracing would change what tools receive and how they start.
type Tracer struct {
	Provider trace.TracerProvider
	// Content records tool arguments and results on execute_tool spans
	// (gen_ai.tool.call.arguments and gen_ai.tool.call.result). They may
	// hold personal or secret data, so they are off by default.
	Content bool
}

var _ agent.Tracer = Tracer{}

// WithTracer traces the run with spans of tp (see Tracer), without tool
// arguments and results.
func WithTracer(tp trace.TracerProvider) agent.RunOption {
	return agent.WithTracing(Tracer{Provider: tp})
}

// runTrace turns one run's events into spans. The loop delivers events
// from one goroutine, so it needs no lock.
type runTrace struct {
	tracer  trace.Tracer
	content bool
	model   string
	ctx     context.Context // carries the run span
	run     trace.Span
	chat    trace.Span
	tools   map[string]trace.Span
	// runID is set from the first event: a resumed run has no run_start.
	runID bool
}

// StartRun implements agent.Tracer: it starts the run span. A Tracer
// without a Provider traces nothing.
func (tr Tracer) StartRun(ctx context.Context, run agent.TracedRun) agent.RunTrace {
	if tr.Provider == nil {
		return nil
	}
	t := &runTrace{tracer: tr.Provider.Tracer(tracerScope), content: tr.Content, model: run.Model, tools: map[string]trace.Span{}}
	attrs := []attribute.KeyValue{attribute.String(attrOperation, "invoke_agent")}
	name := "invoke_agent"
	if run.AgentName != "" {
		name += " " + run.AgentName
		attrs = append(attrs, attribute.String(attrAgentName, run.AgentName))
	}
	if t.model != "" {
		attrs = append(attrs, attribute.String(attrRequestModel, t.model))
	}
	t.ctx, t.run = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return t
}

// Response names the open chat span after the model that answered when
// the model did not say its name up front, and records the finish reason.
func (t *runTrace) Response(resp model.Message) {
	if t.chat == nil {
		return
	}
	if resp.ModelName != "" {
		t.chat.SetAttributes(attribute.String(attrResponseModel, resp.ModelName))
		if t.model == "" {
			t.chat.SetName("chat " + resp.ModelName)
		}
	}
	if resp.Provider != "" {
		t.chat.SetAttributes(providerAttrs(resp.Provider)...)
	}
	if resp.FinishReason != "" {
		t.chat.SetAttributes(attribute.StringSlice(attrFinishReasons, []string{resp.FinishReason}))
	}
}

// Event turns the run's events into spans.
func (t *runTrace) Event(ev agent.Event) {
	if !t.runID {
		t.run.SetAttributes(attribute.String(attrRunID, ev.RunID))
		t.runID = true
	}
	switch ev.Kind {
	case agent.EventModelRequest:
		t.endChat(nil)
		name := "chat"
		attrs := []attribute.KeyValue{attribute.String(attrOperation, "chat")}
		if t.model != "" {
			name += " " + t.model
			attrs = append(attrs, attribute.String(attrRequestModel, t.model))
		}
		_, t.chat = t.tracer.Start(t.ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	case agent.EventModelFallback:
		if ev.Attempt != nil {
			t.failedAttempt(ev.Attempt)
		}
	case agent.EventModelResponse:
		if t.chat != nil && ev.Usage != nil {
			t.chat.SetAttributes(attribute.Int(attrInputTokens, ev.Usage.InputTokens), attribute.Int(attrOutputTokens, ev.Usage.OutputTokens))
		}
		t.endChat(nil)
	case agent.EventToolCall:
		if ev.ToolCall == nil {
			break
		}
		if s, ok := t.tools[ev.ToolCall.ID]; ok {
			// Opened by the call, which started first.
			if t.content && len(ev.ToolCall.Arguments) > 0 {
				s.SetAttributes(attribute.String(attrToolArguments, string(ev.ToolCall.Arguments)))
			}
			break
		}
		t.startTool(ev.ToolCall.ID, ev.ToolCall.Name, ev.ToolCall.Arguments)
	case agent.EventToolReturn:
		if ev.Return != nil {
			t.endTool(ev)
		}
	case agent.EventRunComplete, agent.EventRunFailed, agent.EventRunCancelled, agent.EventRunWaiting:
		t.end(ev)
	}
}

// CallContext puts the call's execute_tool span in ctx, so that spans the
// tool opens nest under it; a call that starts before its tool_call event
// (eager dispatch) opens the span itself. It runs on the loop's goroutine,
// as the event handler does.
func (t *runTrace) CallContext(ctx context.Context, c tool.Call) context.Context {
	s, ok := t.tools[c.ID]
	if !ok {
		s = t.startTool(c.ID, c.Name, c.Arguments)
	}
	return trace.ContextWithSpan(ctx, s)
}

// ChatContext puts the open chat span in ctx, for the model's request.
func (t *runTrace) ChatContext(ctx context.Context) context.Context {
	if t.chat == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, t.chat)
}

func (t *runTrace) startTool(id, name string, args json.RawMessage) trace.Span {
	attrs := []attribute.KeyValue{attribute.String(attrOperation, "execute_tool"),
		attribute.String(attrToolName, name), attribute.String(attrToolCallID, id)}
	if t.content && len(args) > 0 {
		attrs = append(attrs, attribute.String(attrToolArguments, string(args)))
	}
	_, s := t.tracer.Start(t.ctx, "execute_tool "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	t.tools[id] = s
	return s
}

// endTool ends the span of a return's call. A call re-run by a resume has
// no tool_call event in this run, so its span covers only the return.
func (t *runTrace) endTool(ev agent.Event) {
	ret := ev.Return
	s, ok := t.tools[ret.ToolCallID]
	if !ok {
		s = t.startTool(ret.ToolCallID, ret.Name, nil)
	}
	delete(t.tools, ret.ToolCallID)
	if rt := ret.Runtime; rt != nil {
		s.SetAttributes(attribute.Int(attrToolRetry, rt.Retry))
		switch {
		case rt.ErrorKind == tool.ErrorKindApprovalRequired || rt.ErrorKind == tool.ErrorKindCallDeferred:
			// A paused call waits for people or deferred work: not a failure.
			s.SetAttributes(attribute.String(attrToolPaused, string(rt.ErrorKind)))
		case ret.IsError && rt.ErrorKind != "":
			s.SetAttributes(attribute.String(attrErrorType, string(rt.ErrorKind)))
			s.SetStatus(codes.Error, string(rt.ErrorKind))
		}
	} else {
		s.SetAttributes(attribute.Int(attrToolRetry, 0))
	}
	if t.content {
		if b, err := json.Marshal(ret.Content); err == nil {
			s.SetAttributes(attribute.String(attrToolResult, string(b)))
		}
	}
	s.End()
}

// failedAttempt records a request a fallback's model failed as a child
// "chat {model}" span of the request's chat span, with its own times and
// an error status; the chat span itself is the answering model's.
func (t *runTrace) failedAttempt(a *model.Attempt) {
	if t.chat == nil {
		return
	}
	ctx := trace.ContextWithSpan(t.ctx, t.chat)
	name := "chat"
	attrs := []attribute.KeyValue{attribute.String(attrOperation, "chat")}
	if a.Model != "" {
		name += " " + a.Model
		attrs = append(attrs, attribute.String(attrRequestModel, a.Model))
	}
	if a.Provider != "" {
		attrs = append(attrs, providerAttrs(a.Provider)...)
	}
	errType := a.Code
	if a.StatusCode != 0 {
		errType = strconv.Itoa(a.StatusCode)
	}
	if errType == "" {
		errType = "error"
	}
	attrs = append(attrs, attribute.String(attrErrorType, errType))
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...)}
	if !a.Start.IsZero() {
		opts = append(opts, trace.WithTimestamp(a.Start))
	}
	_, s := t.tracer.Start(ctx, name, opts...)
	s.SetStatus(codes.Error, a.Error)
	if !a.End.IsZero() {
		s.End(trace.WithTimestamp(a.End))
	} else {
		s.End()
	}
}

func (t *runTrace) endChat(err *string) {
	if t.chat == nil {
		return
	}
	if err != nil {
		t.chat.SetStatus(codes.Error, *err)
	}
	t.chat.End()
	t.chat = nil
}

// end closes what the run left open and the run span itself.
func (t *runTrace) end(ev agent.Event) {
	var failure *string
	if ev.Kind == agent.EventRunFailed || ev.Kind == agent.EventRunCancelled {
		failure = &ev.Error
	}
	t.endChat(failure)
	for id, s := range t.tools {
		s.End()
		delete(t.tools, id)
	}
	if ev.Usage != nil {
		t.run.SetAttributes(attribute.Int(attrInputTokens, ev.Usage.InputTokens), attribute.Int(attrOutputTokens, ev.Usage.OutputTokens))
	}
	if failure != nil {
		t.run.SetAttributes(attribute.String(attrErrorType, ev.Kind))
		t.run.SetStatus(codes.Error, ev.Error)
	}
	t.run.End()
}

// providerAttrs names the provider of a chat span, under the current
// attribute and its older name, with the GenAI semantic conventions'
// well-known value where one exists (observability backends group by it);
// other names (ollama, a server's own) are sent as they are.
func providerAttrs(provider string) []attribute.KeyValue {
	switch provider {
	case "bedrock":
		provider = "aws.bedrock"
	case "google":
		provider = "gcp.gemini"
	case "google-vertex":
		provider = "gcp.vertex_ai"
	}
	return []attribute.KeyValue{attribute.String(attrProvider, provider), attribute.String(attrSystem, provider)}
}
