package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

type addArgs struct {
	Left  int `json:"left"`
	Right int `json:"right"`
}

func addTool() *tool.Function {
	return tool.Typed("add", "Add two numbers", func(_ context.Context, _ *tool.Context, a addArgs) (tool.Result, error) {
		return tool.JSON(map[string]int{"total": a.Left + a.Right}), nil
	})
}

func calls(cs ...model.ToolCall) model.Message { return model.CallsResponse(cs...) }
func text(s string) model.Message              { return model.Response(model.TextPart(s)) }

func mustRun(t *testing.T, a *agent.Agent, prompt string, opts ...agent.RunOption) *agent.RunResult {
	t.Helper()
	res, err := a.Run(context.Background(), prompt, opts...)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func contentMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("content %s is not an object: %v", b, err)
	}
	return m
}

func TestTextRun(t *testing.T) {
	m := model.TextModel("ready")
	a := agent.NewBuilder(m).SystemPrompt("be brief").Instructions("answer in English").MustBuild()
	res := mustRun(t, a, "hello")
	if res.Output != "ready" || res.Status != agent.StatusCompleted {
		t.Fatalf("got %q %s", res.Output, res.Status)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	first := reqs[0].Messages[0]
	if first.Parts[0].Kind != model.KindSystemPrompt || first.Parts[1].Kind != model.KindUserPrompt {
		t.Fatalf("parts = %+v", first.Parts)
	}
	if first.Instructions != "answer in English" {
		t.Fatalf("instructions = %q", first.Instructions)
	}
	if res.Usage.Requests != 1 || len(res.Messages) != 2 {
		t.Fatalf("usage %+v messages %d", res.Usage, len(res.Messages))
	}
}

func TestToolCallLoop(t *testing.T) {
	m := model.NewTestModel(
		calls(model.Call("call_add", "add", map[string]int{"left": 2, "right": 3})),
		text("done"),
	)
	a := agent.NewBuilder(m).Tool(addTool()).MustBuild()
	res := mustRun(t, a, "Add two numbers")
	if res.Output != "done" {
		t.Fatalf("output %q", res.Output)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if len(reqs[0].Params.Tools) != 1 || reqs[0].Params.Tools[0].Name != "add" {
		t.Fatalf("tools sent: %+v", reqs[0].Params.Tools)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	rets := last.Returns()
	if len(rets) != 1 || rets[0].ToolCallID != "call_add" || rets[0].IsError {
		t.Fatalf("returns %+v", rets)
	}
	if got := contentMap(t, rets[0].Content)["total"]; got != float64(5) {
		t.Fatalf("total = %v", got)
	}
	if res.Usage.ToolCalls != 1 || res.Usage.Requests != 2 {
		t.Fatalf("usage %+v", res.Usage)
	}
	if got := len(res.Returns()); got != 1 {
		t.Fatalf("result returns = %d", got)
	}
}

func TestParallelBatchKeepsModelOrder(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	go func() { started.Wait(); close(release) }()
	slow := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			started.Done()
			select {
			case <-release:
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
			return tool.Text(name), nil
		})
	}
	m := model.NewTestModel(calls(
		model.Call("c1", "t1", nil), model.Call("c2", "t2", nil),
		model.Call("c3", "t3", nil), model.Call("c4", "t4", nil),
	), text("ok"))
	a := agent.NewBuilder(m).Tool(slow("t1"), slow("t2"), slow("t3"), slow("t4")).MustBuild()
	res := mustRun(t, a, "go")
	rets := res.Returns()
	for i, r := range rets {
		if want := "t" + string(rune('1'+i)); r.Name != want || r.Content != want {
			t.Fatalf("return %d = %+v", i, r)
		}
	}
}

func TestModelRetryBudget(t *testing.T) {
	var retries []int
	flaky := tool.New("flaky", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		retries = append(retries, tc.Retry)
		return tool.Result{}, tool.ModelRetry("try again")
	}).WithMaxRetries(2)
	m := model.NewTestModel(
		calls(model.Call("a", "flaky", nil)),
		calls(model.Call("b", "flaky", nil)),
		calls(model.Call("c", "flaky", nil)),
		text("unreachable"),
	)
	a := agent.NewBuilder(m).Tool(flaky).MustBuild()
	res, err := a.Run(context.Background(), "go")
	var rl *agent.RetryLimitError
	if !errors.As(err, &rl) || rl.Tool != "flaky" || rl.MaxRetries != 2 || !errors.Is(err, agent.ErrRetryLimit) {
		t.Fatalf("err = %v", err)
	}
	if res.Status != agent.StatusFailed {
		t.Fatalf("status %s", res.Status)
	}
	if strings.Join(intsToStrings(retries), ",") != "0,1,2" {
		t.Fatalf("retries seen %v", retries)
	}
	// The model saw two corrections with retry metadata.
	reqs := m.Requests()
	ret := reqs[1].Messages[len(reqs[1].Messages)-1].Returns()[0]
	if ret.Runtime.Retry != 1 || ret.Runtime.MaxRetries != 2 || ret.ErrorKind() != tool.ErrorKindModelRetry {
		t.Fatalf("runtime %+v", ret.Runtime)
	}
}

func intsToStrings(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(rune('0' + x))
	}
	return out
}

func TestInvalidArgumentsSpendBudgetFeedbackDoesNot(t *testing.T) {
	fb := tool.New("fb", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.Feedback("file missing")
	}).WithMaxRetries(0)
	m := model.NewTestModel(
		calls(model.Call("1", "fb", nil)), calls(model.Call("2", "fb", nil)),
		calls(model.Call("3", "add", map[string]any{"left": "x"})),
	)
	a := agent.NewBuilder(m).Tool(fb, addTool().WithMaxRetries(0)).MustBuild()
	_, err := a.Run(context.Background(), "go")
	var rl *agent.RetryLimitError
	if !errors.As(err, &rl) || rl.Tool != "add" {
		t.Fatalf("err = %v", err)
	}
}

func TestRunScopedToolsDoNotChangeAgent(t *testing.T) {
	echo := tool.New("run_echo", "Echo one run payload", map[string]any{"type": "object", "properties": map[string]any{}},
		func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
			return tool.JSON(args), nil
		})
	m := model.NewTestModel(calls(model.Call("1", "run_echo", map[string]any{})), text("done"), calls(model.Call("2", "run_echo", map[string]any{})), text("second"))
	a := agent.NewBuilder(m).MustBuild()
	s := a.NewSession()
	res, err := s.Run(context.Background(), "use the run tool", agent.WithTools(echo), agent.WithInstructions("run only"))
	if err != nil || res.Output != "done" {
		t.Fatalf("%v %v", res, err)
	}
	if res.Returns()[0].ErrorKind() != "" {
		t.Fatalf("run tool failed: %+v", res.Returns()[0])
	}
	res, err = s.Run(context.Background(), "again")
	if err != nil {
		t.Fatal(err)
	}
	if k := res.Returns()[0].ErrorKind(); k != tool.ErrorKindNotFound {
		t.Fatalf("second run kind %q", k)
	}
	reqs := m.Requests()
	if len(reqs[2].Params.Tools) != 0 || strings.Contains(reqs[2].Messages[len(reqs[2].Messages)-1].Instructions, "run only") {
		t.Fatalf("run options leaked into the agent: %+v", reqs[2])
	}
}

func TestSessionKeepsHistory(t *testing.T) {
	m := model.NewTestModel(text("one"), text("two"))
	s := agent.NewBuilder(m).SystemPrompt("sys").MustBuild().NewSession()
	if _, err := s.Run(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), "second")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 4 || len(res.NewMessages) != 2 || len(s.Messages()) != 4 {
		t.Fatalf("messages %d new %d", len(res.Messages), len(res.NewMessages))
	}
	second := m.Requests()[1].Messages
	if len(second) != 3 || second[2].Parts[0].Kind != model.KindUserPrompt {
		t.Fatalf("second request %+v", second)
	}
	for _, p := range second[2].Parts {
		if p.Kind == model.KindSystemPrompt {
			t.Fatal("system prompt repeated")
		}
	}
}

func TestSessionBusy(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	block := tool.New("block", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		close(entered)
		<-release
		return tool.Text("ok"), nil
	})
	m := model.NewTestModel(calls(model.Call("1", "block", nil)), text("done"))
	s := agent.NewBuilder(m).Tool(block).MustBuild().NewSession()
	done := make(chan error, 1)
	go func() { _, err := s.Run(context.Background(), "go"); done <- err }()
	<-entered
	if _, err := s.Run(context.Background(), "again"); !errors.Is(err, agent.ErrSessionBusy) {
		t.Fatalf("err = %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestEvents(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c", "add", map[string]int{"left": 1, "right": 1})), text("done"))
	a := agent.NewBuilder(m).Tool(addTool()).MustBuild()
	var kinds []string
	seq := 0
	mustRun(t, a, "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Sequence != seq+1 {
			t.Errorf("sequence %d after %d", ev.Sequence, seq)
		}
		seq = ev.Sequence
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.EventToolReturn && (ev.Return == nil || ev.Return.ToolCallID != "c") {
			t.Errorf("tool return event %+v", ev)
		}
	}))
	want := "run_start model_request model_response tool_call tool_return model_request model_response run_complete"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
}

func TestModelResponseEventSaysWhoAnsweredAndWhy(t *testing.T) {
	m := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		resp := model.Response(model.TextPart("hi"))
		resp.ModelName, resp.FinishReason, resp.Provider, resp.ResponseID = "m-1", model.FinishStop, "acme", "r-9"
		return resp, nil
	})
	a := agent.NewBuilder(m).MustBuild()
	var got *agent.ResponseInfo
	mustRun(t, a, "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventModelResponse {
			got = ev.Response
		}
	}))
	want := agent.ResponseInfo{ModelName: "m-1", FinishReason: "stop", Provider: "acme", ResponseID: "r-9"}
	if got == nil || *got != want {
		t.Fatalf("response info %+v, want %+v", got, want)
	}
	// Only what the model said: TestModel names itself, nothing more.
	mustRun(t, agent.NewBuilder(model.NewTestModel(text("x"))).MustBuild(), "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventModelResponse && (ev.Response == nil || *ev.Response != agent.ResponseInfo{ModelName: "test"}) {
			t.Errorf("response info %+v, want only the model name", ev.Response)
		}
	}))
}

func TestUnavailableToolsEventAndPolicy(t *testing.T) {
	gated := tool.New("gated", "Only visible when enabled", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("x"), nil
	}).WithAvailability(func(rc *tool.RunContext) bool { b, _ := rc.Metadata["enable_gated_tool"].(bool); return b })
	var custom []*agent.CustomEvent
	h := agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventCustom {
			custom = append(custom, ev.Custom)
		}
	})
	m := model.NewTestModel(text("a"), text("b"))
	a := agent.NewBuilder(m).Tool(gated, addTool()).MustBuild()
	mustRun(t, a, "go", h)
	if len(custom) != 1 || custom[0].Kind != agent.CustomToolsUnavailable {
		t.Fatalf("custom events %+v", custom)
	}
	if un := custom[0].Payload["unavailable"].([]string); len(un) != 1 || un[0] != "gated" {
		t.Fatalf("payload %+v", custom[0].Payload)
	}
	if tools := m.Requests()[0].Params.Tools; len(tools) != 1 || tools[0].Name != "add" {
		t.Fatalf("tools %+v", tools)
	}
	mustRun(t, a, "go", agent.WithMetadata(map[string]any{"enable_gated_tool": true}))
	if tools := m.Requests()[1].Params.Tools; len(tools) != 2 {
		t.Fatalf("tools %+v", tools)
	}

	strict := agent.NewBuilder(model.TextModel("never")).Tool(gated).UnavailableTools(agent.FailOnUnavailable).MustBuild()
	res, err := strict.Run(context.Background(), "go")
	if !errors.Is(err, agent.ErrUnavailableTools) || !strings.Contains(err.Error(), "gated") || res.Status != agent.StatusFailed {
		t.Fatalf("err = %v", err)
	}
}

func TestHiddenByActiveTags(t *testing.T) {
	local := tool.New("search_files", "Search files", nil, nil).WithTags("filesystem", "search").WithHiddenByTags("remote-search")
	m := model.TextModel("ok")
	mustRun(t, agent.NewBuilder(m).Tool(local).ActiveTags("remote-search").MustBuild(), "go")
	if len(m.Requests()[0].Params.Tools) != 0 {
		t.Fatal("tool covered by an active tag was sent")
	}
}

func TestRunActiveTagsAddToTheAgents(t *testing.T) {
	local := tool.New("search_files", "Search files", nil, nil).WithHiddenByTags("remote-search")
	other := tool.New("read_file", "Read a file", nil, nil).WithHiddenByTags("sandboxed")
	m := model.NewTestModel(text("ok"), text("ok"))
	a := agent.NewBuilder(m).Tool(local, other).ActiveTags("sandboxed").MustBuild()
	var unavailable []any
	mustRun(t, a, "go", agent.WithActiveTags("remote-search"), agent.WithEvents(func(ev agent.Event) {
		if ev.Custom != nil && ev.Custom.Kind == agent.CustomToolsUnavailable {
			unavailable = append(unavailable, ev.Custom.Payload["unavailable"])
		}
	}))
	if n := len(m.Requests()[0].Params.Tools); n != 0 {
		t.Fatalf("%d tools sent, want none", n)
	}
	if fmt.Sprint(unavailable) != "[[read_file search_files]]" {
		t.Fatalf("unavailable = %v", unavailable)
	}
	// The run's tags do not stay on the agent.
	mustRun(t, a, "again")
	if tools := m.Requests()[1].Params.Tools; len(tools) != 1 || tools[0].Name != "search_files" {
		t.Fatalf("second run tools %+v", tools)
	}
}

func TestRunContextCarriesTheRunsContext(t *testing.T) {
	type key struct{}
	var seen []any
	avail := tool.New("probe", "", nil, nil).WithAvailability(func(rc *tool.RunContext) bool {
		if rc.Ctx == nil {
			seen = append(seen, nil) // outside a run: the agent is being built
		} else {
			seen = append(seen, rc.Ctx.Value(key{}))
		}
		return true
	})
	a := agent.NewBuilder(model.TextModel("ok")).Tool(avail).MustBuild()
	if _, err := a.Run(context.WithValue(context.Background(), key{}, "run ctx"), "go"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[run ctx]" {
		t.Fatalf("seen %v", seen)
	}
}

func TestCancellationCancelsRunningTools(t *testing.T) {
	var entered sync.WaitGroup
	entered.Add(2)
	wait := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			entered.Done()
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		})
	}
	m := model.NewTestModel(calls(model.Call("1", "w1", nil), model.Call("2", "w2", nil)), text("never"))
	a := agent.NewBuilder(m).Tool(wait("w1"), wait("w2")).MustBuild()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { entered.Wait(); cancel() }()
	res, err := a.Run(ctx, "go")
	if !errors.Is(err, agent.ErrCancelled) || res.Status != agent.StatusCancelled {
		t.Fatalf("err %v status %s", err, res.Status)
	}
	rets := res.Returns()
	if len(rets) != 2 || rets[0].ErrorKind() != tool.ErrorKindCancelled || rets[1].ErrorKind() != tool.ErrorKindCancelled {
		t.Fatalf("returns %+v", rets)
	}
}

func TestGarbageModelResponses(t *testing.T) {
	for name, resp := range map[string]model.Message{
		"empty":     {Kind: model.KindResponse},
		"noname":    {Kind: model.KindResponse, Parts: []model.Part{{Kind: model.KindToolCall, ToolCall: &model.ToolCall{ID: "x"}}}},
		"wrongpart": {Kind: model.KindResponse, Parts: []model.Part{model.UserPrompt("hi")}},
		"dupids":    calls(model.Call("x", "add", nil), model.Call("x", "add", nil)),
	} {
		t.Run(name, func(t *testing.T) {
			a := agent.NewBuilder(model.NewTestModel(resp)).Tool(addTool()).MustBuild()
			res, err := a.Run(context.Background(), "go")
			if !errors.Is(err, agent.ErrModel) || res.Status != agent.StatusFailed {
				t.Fatalf("err = %v", err)
			}
		})
	}
	// Invalid JSON arguments reach the tool layer as invalid_arguments.
	bad := model.Message{Kind: model.KindResponse, Parts: []model.Part{model.ToolCallPart("1", "add", json.RawMessage(`{"left":`))}}
	m := model.NewTestModel(bad, text("fixed"))
	res := mustRun(t, agent.NewBuilder(m).Tool(addTool()).MustBuild(), "go")
	if k := res.Returns()[0].ErrorKind(); k != tool.ErrorKindInvalidArguments {
		t.Fatalf("kind %q", k)
	}
	// A script that runs out is a model error.
	if _, err := agent.NewBuilder(model.NewTestModel()).MustBuild().Run(context.Background(), "go"); !errors.Is(err, agent.ErrModel) {
		t.Fatalf("err = %v", err)
	}
}

func TestFunctionModel(t *testing.T) {
	var seen atomic.Int32
	fm := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, p model.Params) (model.Message, error) {
		seen.Add(1)
		last := msgs[len(msgs)-1]
		if rets := last.Returns(); len(rets) > 0 {
			return text("sum=" + string(rets[0].Content.(json.RawMessage))), nil
		}
		if len(p.Tools) != 1 {
			return model.Message{}, errors.New("expected one tool")
		}
		return calls(model.Call("c", "echo", map[string]int{"v": 7})), nil
	})
	echo := tool.New("echo", "", nil, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.JSON(args), nil
	})
	res := mustRun(t, agent.NewBuilder(fm).Tool(echo).MustBuild(), "go")
	if res.Output != `sum={"v":7}` || seen.Load() != 2 {
		t.Fatalf("output %q", res.Output)
	}
	panicky := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) { panic("boom") })
	if _, err := agent.NewBuilder(panicky).MustBuild().Run(context.Background(), "go"); !errors.Is(err, agent.ErrModel) {
		t.Fatalf("err = %v", err)
	}
}

func TestApprovalRequiredWaits(t *testing.T) {
	deploy := tool.New("deploy", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("deploy production", map[string]any{"risk": "high"})
		}
		return tool.JSON(map[string]bool{"approved": true}), nil
	})
	m := model.NewTestModel(calls(model.Call("call_deploy", "deploy", nil), model.Call("call_add", "add", map[string]int{"left": 1, "right": 2})))
	s := agent.NewBuilder(m).Tool(deploy, addTool()).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "deploy")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("%v %v", res, err)
	}
	if len(res.Pending) != 1 || res.Pending[0].Kind != agent.PendingApproval || res.Pending[0].ToolCallID != "call_deploy" ||
		res.Pending[0].Metadata["risk"] != "high" || res.Pending[0].Metadata["reason"] != "deploy production" {
		t.Fatalf("pending %+v", res.Pending)
	}
	if !s.Waiting() {
		t.Fatal("session not waiting")
	}
	if _, err := s.Run(context.Background(), "another"); !errors.Is(err, agent.ErrState) {
		t.Fatalf("err = %v", err)
	}
}

func TestToolsetInstructionsAndDuplicates(t *testing.T) {
	basic := toolset.New("basic", addTool()).WithInstruction("basic", "Prefer exact lookup before answering.")
	m := model.TextModel("ok")
	mustRun(t, agent.NewBuilder(m).Toolset(basic).Instructions("agent level").MustBuild(), "go")
	got := m.Requests()[0].Messages[0].Instructions
	if !strings.Contains(got, "agent level") || !strings.Contains(got, `<tool-instruction name="basic">Prefer exact lookup before answering.</tool-instruction>`) {
		t.Fatalf("instructions %q", got)
	}
	if _, err := agent.NewBuilder(m).Tool(addTool()).Toolset(basic).Build(); !errors.Is(err, agent.ErrConfig) || !strings.Contains(err.Error(), "add") {
		t.Fatalf("duplicate err = %v", err)
	}
	if _, err := agent.NewBuilder(nil).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("nil model err = %v", err)
	}
}

type noteStore map[string]string

func TestTypedDependenciesReachTools(t *testing.T) {
	readNote := tool.New("read_note", "Read one note", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		notes, ok := tool.Dependency[noteStore](tc)
		if !ok {
			return tool.Result{}, tool.UserError("no notes")
		}
		return tool.JSON(map[string]string{"value": notes["lang"]}), nil
	})
	deps := &tool.Deps{}
	tool.Provide(deps, noteStore{"lang": "Chinese"})
	m := model.NewTestModel(calls(model.Call("1", "read_note", nil)), text("done"))
	res := mustRun(t, agent.NewBuilder(m).Tool(readNote).Deps(deps).MustBuild(), "read note")
	if v := contentMap(t, res.Returns()[0].Content)["value"]; v != "Chinese" || res.Output != "done" {
		t.Fatalf("value %v", v)
	}
}

func TestMaxStepsAndSequentialPolicy(t *testing.T) {
	var active, maxActive atomic.Int32
	track := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			n := active.Add(1)
			for {
				old := maxActive.Load()
				if n <= old || maxActive.CompareAndSwap(old, n) {
					break
				}
			}
			active.Add(-1)
			return tool.Text(name), nil
		})
	}
	m := model.NewTestModel(calls(model.Call("1", "a", nil), model.Call("2", "b", nil), model.Call("3", "c", nil)), text("ok"))
	mustRun(t, agent.NewBuilder(m).Tool(track("a"), track("b"), track("c")).Sequential(true).MustBuild(), "go")
	if maxActive.Load() != 1 {
		t.Fatalf("max concurrent = %d", maxActive.Load())
	}
	loop := model.NewTestModel(calls(model.Call("1", "a", nil)), calls(model.Call("2", "a", nil)), text("x"))
	_, err := agent.NewBuilder(loop).Tool(track("a")).MaxSteps(2).MustBuild().Run(context.Background(), "go")
	if !errors.Is(err, agent.ErrMaxSteps) {
		t.Fatalf("err = %v", err)
	}
}

func TestBuilderRegistryAndRunToolsets(t *testing.T) {
	reg, err := tool.NewRegistry(addTool())
	if err != nil {
		t.Fatal(err)
	}
	reg.SetMaxRetries(0)
	var hooked atomic.Int32
	reg.AddHook(tool.Hook{Before: func(context.Context, *tool.Context, map[string]any) error { hooked.Add(1); return nil }})
	echo := tool.New("echo", "", nil, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.JSON(args), nil
	})
	m := model.NewTestModel(
		calls(model.Call("1", "add", map[string]int{"left": 1, "right": 1}), model.Call("2", "echo", map[string]int{"v": 1})),
		text("done"),
	)
	a := agent.NewBuilder(m).Registry(reg).MustBuild()
	res := mustRun(t, a, "go", agent.WithToolsets(toolset.New("run_only", echo).WithInstruction("", "Echo faithfully.")))
	rets := res.Returns()
	if len(rets) != 2 || rets[0].ErrorKind() != "" || rets[1].ErrorKind() != "" || hooked.Load() != 2 {
		t.Fatalf("returns %+v hooked %d", rets, hooked.Load())
	}
	if !strings.Contains(m.Requests()[0].Messages[0].Instructions, "Echo faithfully.") {
		t.Fatal("run toolset instructions missing")
	}
	if got := len(a.NewSession().Messages()); got != 0 {
		t.Fatalf("fresh session has %d messages", got)
	}
	m2 := model.NewTestModel(calls(model.Call("3", "echo", nil)), text("x"))
	res = mustRun(t, agent.NewBuilder(m2).Registry(reg).MustBuild(), "again")
	if res.Returns()[0].ErrorKind() != tool.ErrorKindNotFound {
		t.Fatalf("run toolset leaked: %+v", res.Returns()[0])
	}
}

func TestDefaultEffectIsChecked(t *testing.T) {
	_, err := agent.NewBuilder(model.NewTestModel(text("x"))).DefaultEffect("maybe").Build()
	if !errors.Is(err, agent.ErrConfig) || !errors.Is(err, tool.ErrInvalidOption) {
		t.Fatalf("Build = %v", err)
	}
}
