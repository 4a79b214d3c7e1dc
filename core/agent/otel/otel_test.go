package otel_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agent/otel"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func recorder() (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	sr := tracetest.NewSpanRecorder()
	return sr, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// tracedAgent answers (as TestModel, which names itself only in its
// responses, so chat spans take that name) with two parallel calls of add (the second one with
// invalid arguments), then with text.
func tracedAgent() *agent.Agent {
	first := calls(
		model.ToolCall{ID: "c1", Name: "add", Arguments: json.RawMessage(`{"left":1,"right":2}`)},
		model.ToolCall{ID: "c2", Name: "add", Arguments: json.RawMessage(`{"left":"x"}`)},
	)
	first.Usage = &model.Usage{Requests: 1, InputTokens: 10, OutputTokens: 4}
	first.FinishReason = model.FinishToolCalls
	last := text("3")
	last.Usage = &model.Usage{Requests: 1, InputTokens: 20, OutputTokens: 1}
	return agent.NewBuilder(model.NewTestModel(first, last)).Name("calc").Tool(addTool()).MustBuild()
}

func TestTracingSpanTree(t *testing.T) {
	sr, tp := recorder()
	ctx, parent := tp.Tracer("caller").Start(context.Background(), "caller")
	if _, err := tracedAgent().Run(ctx, "add", otel.WithTracer(tp)); err != nil {
		t.Fatal(err)
	}
	parent.End()

	spans := sr.Ended()
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	runs := byName["invoke_agent calc"]
	if len(runs) != 1 || len(byName["chat test"]) != 2 || len(byName["execute_tool add"]) != 2 {
		t.Fatalf("spans: %v", names(spans))
	}
	run := runs[0]
	if run.Parent().SpanID() != parent.SpanContext().SpanID() || run.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Fatalf("invoke_agent is not a child of the caller's span")
	}
	ra := attrs(run)
	if ra["gen_ai.operation.name"].AsString() != "invoke_agent" || ra["gen_ai.agent.name"].AsString() != "calc" ||
		ra["gen_ai.usage.input_tokens"].AsInt64() != 30 || ra["starweaver.run_id"].AsString() == "" {
		t.Fatalf("invoke_agent attributes: %v", ra)
	}
	for _, s := range append(byName["chat test"], byName["execute_tool add"]...) {
		if s.Parent().SpanID() != run.SpanContext().SpanID() {
			t.Fatalf("%s is not a child of invoke_agent", s.Name())
		}
	}
	ca := attrs(byName["chat test"][0])
	if ca["gen_ai.operation.name"].AsString() != "chat" || ca["gen_ai.usage.input_tokens"].AsInt64() != 10 ||
		ca["gen_ai.usage.output_tokens"].AsInt64() != 4 || ca["gen_ai.response.model"].AsString() != "test" ||
		ca["gen_ai.response.finish_reasons"].AsStringSlice()[0] != "tool_calls" {
		t.Fatalf("chat attributes: %v", ca)
	}
	tools := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range byName["execute_tool add"] {
		tools[attrs(s)["gen_ai.tool.call.id"].AsString()] = s
		if _, ok := attrs(s)["gen_ai.tool.call.arguments"]; ok {
			t.Fatalf("arguments recorded without the opt-in")
		}
		if _, ok := attrs(s)["gen_ai.tool.call.result"]; ok {
			t.Fatalf("result recorded without the opt-in")
		}
	}
	ok, bad := attrs(tools["c1"]), attrs(tools["c2"])
	if ok["gen_ai.tool.name"].AsString() != "add" || ok["gen_ai.operation.name"].AsString() != "execute_tool" {
		t.Fatalf("execute_tool attributes: %v", ok)
	}
	if _, failed := ok["error.type"]; failed || tools["c1"].Status().Code == codes.Error {
		t.Fatalf("successful call marked failed: %v", ok)
	}
	if bad["error.type"].AsString() != string(tool.ErrorKindInvalidArguments) || bad["starweaver.tool.retry"].AsInt64() != 1 ||
		tools["c2"].Status().Code != codes.Error {
		t.Fatalf("failed call attributes: %v", bad)
	}
}

func TestTracingContentOptIn(t *testing.T) {
	sr, tp := recorder()
	mustRun(t, tracedAgent(), "add", agent.WithTracing(otel.Tracer{Provider: tp, Content: true}))
	for _, s := range sr.Ended() {
		if s.Name() != "execute_tool add" || attrs(s)["gen_ai.tool.call.id"].AsString() != "c1" {
			continue
		}
		a := attrs(s)
		if a["gen_ai.tool.call.arguments"].AsString() != `{"left":1,"right":2}` || a["gen_ai.tool.call.result"].AsString() != `{"total":3}` {
			t.Fatalf("content attributes: %v", a)
		}
		return
	}
	t.Fatal("no execute_tool span for c1")
}

func TestTracingFailedRun(t *testing.T) {
	sr, tp := recorder()
	m := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.Message{}, context.DeadlineExceeded
	})
	a := agent.NewBuilder(m).MustBuild()
	if _, err := a.Run(context.Background(), "hi", otel.WithTracer(tp)); err == nil {
		t.Fatal("run succeeded")
	}
	spans := sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("spans: %v", names(spans))
	}
	for _, s := range spans {
		if s.Status().Code != codes.Error {
			t.Fatalf("%s not marked failed", s.Name())
		}
	}
}

func TestTracingOffRecordsNothing(t *testing.T) {
	sr, _ := recorder()
	mustRun(t, tracedAgent(), "add")
	if n := len(sr.Ended()) + len(sr.Started()); n != 0 {
		t.Fatalf("%d spans without a tracer", n)
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}

func TestTracingResumedRun(t *testing.T) {
	sr, tp := recorder()
	d := &deployTool{}
	s, _ := waitingSession(t, d, text("deployed"))
	// The paused run was not traced; the resume is.
	p := s.Pending()[0]
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p.ID, Approved: true}}},
		otel.WithTracer(tp))
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %v %v", res, err)
	}
	var run, deploy sdktrace.ReadOnlySpan
	for _, s := range sr.Ended() {
		switch s.Name() {
		case "invoke_agent":
			run = s
		case "execute_tool deploy":
			deploy = s
		}
	}
	if run == nil || deploy == nil {
		t.Fatalf("spans: %v", names(sr.Ended()))
	}
	if attrs(run)["starweaver.run_id"].AsString() != res.RunID || deploy.Parent().SpanID() != run.SpanContext().SpanID() ||
		attrs(deploy)["gen_ai.tool.call.id"].AsString() != "call_deploy" {
		t.Fatalf("resumed run: %v, deploy: %v", attrs(run), attrs(deploy))
	}
}

func TestTracingPausedCallIsNotAFailure(t *testing.T) {
	sr, tp := recorder()
	d := &deployTool{}
	m := model.NewTestModel(calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})))
	a := agent.NewBuilder(m).Tool(d.tool()).MustBuild()
	res := mustRun(t, a, "deploy", otel.WithTracer(tp))
	if res.Status != agent.StatusWaiting {
		t.Fatalf("status %s", res.Status)
	}
	for _, s := range sr.Ended() {
		if s.Status().Code == codes.Error {
			t.Fatalf("%s marked failed: %v", s.Name(), attrs(s))
		}
		if s.Name() == "execute_tool deploy" && attrs(s)["starweaver.tool.paused"].AsString() != string(tool.ErrorKindApprovalRequired) {
			t.Fatalf("paused call attributes: %v", attrs(s))
		}
	}
}

// Spans that tools and models open from their context nest under the
// call's execute_tool span and the request's chat span.
func TestTracingUserSpansNestUnderTheirCallAndRequest(t *testing.T) {
	sr, tp := recorder()
	open := func(ctx context.Context, name string) {
		_, s := trace.SpanFromContext(ctx).TracerProvider().Tracer("user").Start(ctx, name)
		s.End()
	}
	step := 0
	m := model.NewFunctionModel(func(ctx context.Context, _ []model.Message, _ model.Params) (model.Message, error) {
		open(ctx, "inside model")
		step++
		if step == 1 {
			return calls(model.Call("c1", "probe", map[string]int{}), model.Call("c2", "probe", map[string]int{})), nil
		}
		return text("done"), nil
	})
	probe := tool.New("probe", "", map[string]any{"type": "object"}, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		open(ctx, "inside "+tc.ToolCallID)
		return tool.Text("ok"), nil
	})
	a := agent.NewBuilder(m).Tool(probe).MustBuild()
	if _, err := a.Run(context.Background(), "go", otel.WithTracer(tp)); err != nil {
		t.Fatal(err)
	}
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		byID[s.SpanContext().SpanID()] = s
	}
	parentOf := func(s sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan { return byID[s.Parent().SpanID()] }
	var models, tools int
	for _, s := range sr.Ended() {
		switch s.Name() {
		case "inside model":
			models++
			if p := parentOf(s); p == nil || attrs(p)["gen_ai.operation.name"].AsString() != "chat" {
				t.Fatalf("the model's span is not under a chat span")
			}
		case "inside c1", "inside c2":
			tools++
			p := parentOf(s)
			if p == nil || attrs(p)["gen_ai.tool.call.id"].AsString() != s.Name()[len("inside "):] {
				t.Fatalf("%s is not under its call's span", s.Name())
			}
		}
	}
	if models != 2 || tools != 2 {
		t.Fatalf("spans %v", names(sr.Ended()))
	}
}

// An agent tool's child run is traced with its parent's tracer, its
// invoke_agent span nested under the parent's execute_tool span.
func TestTracingAgentToolNestsTheChildRun(t *testing.T) {
	sr, tp := recorder()
	child := agent.NewBuilder(model.NewTestModel(text("4"))).Name("maths").MustBuild()
	at, err := agent.AsTool(child, agent.AsToolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parent := agent.NewBuilder(model.NewTestModel(
		calls(model.ToolCall{ID: "c1", Name: "maths", Arguments: json.RawMessage(`{"prompt":"2+2"}`)}), text("four"))).
		Name("front").Tool(at).MustBuild()
	mustRun(t, parent, "go", otel.WithTracer(tp))

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		if byName[s.Name()] != nil && s.Name() != "chat test" {
			t.Fatalf("two %q spans: the parent traced the child's events too (%v)", s.Name(), names(sr.Ended()))
		}
		byName[s.Name()] = s
	}
	call, childRun, parentRun := byName["execute_tool maths"], byName["invoke_agent maths"], byName["invoke_agent front"]
	if call == nil || childRun == nil || parentRun == nil {
		t.Fatalf("spans: %v", names(sr.Ended()))
	}
	if childRun.Parent().SpanID() != call.SpanContext().SpanID() || call.Parent().SpanID() != parentRun.SpanContext().SpanID() {
		t.Fatal("the child's run is not nested under the parent's call")
	}
}

// A chat span names its provider under gen_ai.provider.name and its older
// name gen_ai.system, with the semantic conventions' well-known value.
func TestTracingProviderAttributes(t *testing.T) {
	for provider, want := range map[string]string{"bedrock": "aws.bedrock", "google": "gcp.gemini", "openai": "openai", "acme": "acme"} {
		sr, tp := recorder()
		resp := text("hi")
		resp.Provider = provider
		a := agent.NewBuilder(model.NewTestModel(resp)).MustBuild()
		if _, err := a.Run(context.Background(), "go", otel.WithTracer(tp)); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range sr.Ended() {
			if at := attrs(s); at["gen_ai.operation.name"].AsString() == "chat" {
				found = true
				if at["gen_ai.provider.name"].AsString() != want || at["gen_ai.system"].AsString() != want {
					t.Errorf("%s: provider.name %q, system %q, want %q", provider, at["gen_ai.provider.name"].AsString(), at["gen_ai.system"].AsString(), want)
				}
			}
		}
		if !found {
			t.Fatalf("%s: no chat span", provider)
		}
	}
}
