package agent

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

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

// tracerScope names the instrumentation scope of the spans.
const tracerScope = "github.com/starweaver-go/starweaver/core/agent"

// WithTracer traces the run with spans of tp, following the OpenTelemetry
// GenAI conventions: "invoke_agent {agent}" for the run (a resumed run gets
// a span of its own), with a child "chat {model}" per model request and a
// child "execute_tool {tool}" per tool call. The run span's parent is the
// span active in the run's context. Tool arguments and results are left
// out unless [WithTraceContent] opts in.
//
// It is a run option rather than a Builder setting because the provider
// belongs to the caller's process setup, like [WithEvents]. Without it a
// run creates no spans and pays nothing. Spans created inside models and
// tools parent to the caller's span, not to these: the run hands its
// context to them unchanged.
//
// The spans are made from the run's events. The calls of one response
// report their returns together, so the execute_tool spans of parallel
// calls end together. A tool.Hook could time each call, but a hook makes
// the registry re-encode every call's arguments and turns off the Starter
// path, so tracing would change what tools receive and how they start.
func WithTracer(tp trace.TracerProvider) RunOption {
	return func(o *runOptions) { o.tracer = tp }
}

// WithTraceContent records tool arguments and results on execute_tool spans
// (gen_ai.tool.call.arguments and gen_ai.tool.call.result). They may hold
// personal or secret data, so they are off by default.
func WithTraceContent(on bool) RunOption {
	return func(o *runOptions) { o.traceContent = on }
}

// runTrace turns one run's events into spans. The loop delivers events
// from one goroutine, so it needs no lock. Every method of a nil runTrace
// does nothing, so that an untraced run pays only a nil check.
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

// newRunTrace starts the run span, or returns nil when o has no tracer.
func newRunTrace(ctx context.Context, a *Agent, o *runOptions) *runTrace {
	if o.tracer == nil {
		return nil
	}
	t := &runTrace{tracer: o.tracer.Tracer(tracerScope), content: o.traceContent, tools: map[string]trace.Span{}}
	if n, ok := a.model.(interface{ Name() string }); ok {
		t.model = n.Name()
	}
	attrs := []attribute.KeyValue{attribute.String(attrOperation, "invoke_agent")}
	name := "invoke_agent"
	if a.name != "" {
		name += " " + a.name
		attrs = append(attrs, attribute.String(attrAgentName, a.name))
	}
	if t.model != "" {
		attrs = append(attrs, attribute.String(attrRequestModel, t.model))
	}
	if ctx == nil {
		ctx = context.Background()
	}
	t.ctx, t.run = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return t
}

// response names the open chat span after the model that answered when
// the model did not say its name up front, and records the finish reason.
func (t *runTrace) response(resp model.Message) {
	if t == nil || t.chat == nil {
		return
	}
	if resp.ModelName != "" {
		t.chat.SetAttributes(attribute.String(attrResponseModel, resp.ModelName))
		if t.model == "" {
			t.chat.SetName("chat " + resp.ModelName)
		}
	}
	if resp.Provider != "" {
		t.chat.SetAttributes(attribute.String(attrProvider, resp.Provider))
	}
	if resp.FinishReason != "" {
		t.chat.SetAttributes(attribute.StringSlice(attrFinishReasons, []string{resp.FinishReason}))
	}
}

// handle is the run's EventHandler.
func (t *runTrace) handle(ev Event) {
	if !t.runID {
		t.run.SetAttributes(attribute.String(attrRunID, ev.RunID))
		t.runID = true
	}
	switch ev.Kind {
	case EventModelRequest:
		t.endChat(nil)
		name := "chat"
		attrs := []attribute.KeyValue{attribute.String(attrOperation, "chat")}
		if t.model != "" {
			name += " " + t.model
			attrs = append(attrs, attribute.String(attrRequestModel, t.model))
		}
		_, t.chat = t.tracer.Start(t.ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	case EventModelResponse:
		if t.chat != nil && ev.Usage != nil {
			t.chat.SetAttributes(attribute.Int(attrInputTokens, ev.Usage.InputTokens), attribute.Int(attrOutputTokens, ev.Usage.OutputTokens))
		}
		t.endChat(nil)
	case EventToolCall:
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
	case EventToolReturn:
		if ev.Return != nil {
			t.endTool(ev)
		}
	case EventRunComplete, EventRunFailed, EventRunCancelled, EventRunWaiting:
		t.end(ev)
	}
}

// callContext puts the call's execute_tool span in ctx, so that spans the
// tool opens nest under it; a call that starts before its tool_call event
// (eager dispatch) opens the span itself. It runs on the loop's goroutine,
// as the event handler does.
func (t *runTrace) callContext(ctx context.Context, c tool.Call) context.Context {
	s, ok := t.tools[c.ID]
	if !ok {
		s = t.startTool(c.ID, c.Name, c.Arguments)
	}
	return trace.ContextWithSpan(ctx, s)
}

// chatContext puts the open chat span in ctx, for the model's request.
func (t *runTrace) chatContext(ctx context.Context) context.Context {
	if t == nil || t.chat == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, t.chat)
}

// batchContext is the BatchOptions.CallContext of a run; nil when the run
// is not traced.
func (t *runTrace) batchContext() func(context.Context, tool.Call) context.Context {
	if t == nil {
		return nil
	}
	return t.callContext
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
func (t *runTrace) endTool(ev Event) {
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
func (t *runTrace) end(ev Event) {
	var failure *string
	if ev.Kind == EventRunFailed || ev.Kind == EventRunCancelled {
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
