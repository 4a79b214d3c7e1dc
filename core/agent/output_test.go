package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

var cityOutput = agent.OutputSpec{
	Schema: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}, "population": map[string]any{"type": "integer"}},
		"required":             []any{"city", "population"},
		"additionalProperties": false,
	},
}

func outputCall(id string, v any) model.Message {
	return calls(model.Call(id, agent.DefaultOutputName, v))
}

func TestOutputToolEndsTheRun(t *testing.T) {
	m := model.NewTestModel(outputCall("o1", map[string]any{"city": "Paris", "population": 2100000}))
	a := agent.NewBuilder(m).Output(cityOutput).MustBuild()
	res := mustRun(t, a, "biggest French city?")
	if string(res.OutputValue) != `{"city":"Paris","population":2100000}` || res.Output != string(res.OutputValue) {
		t.Fatalf("output %q value %s", res.Output, res.OutputValue)
	}
	p := m.Requests()[0].Params
	if p.Output == nil || p.Output.Mode != model.OutputTool || p.Output.Name != "final_result" {
		t.Fatalf("params output %+v", p.Output)
	}
	if len(p.Tools) != 1 || p.Tools[0].Name != "final_result" {
		t.Fatalf("tools %+v", p.Tools)
	}
	if k, _ := tool.MetadataKind(p.Tools[0].Metadata); k != tool.KindOutput {
		t.Fatalf("output tool kind %v", p.Tools[0].Metadata)
	}
	// The output call gets a return, so the history stays well formed.
	last := res.Messages[len(res.Messages)-1]
	if last.Kind != model.KindRequest || len(last.Returns()) != 1 || last.Returns()[0].Content != "Final result processed." {
		t.Fatalf("last message %+v", last)
	}
}

func TestOutputToolIsSentWithEveryRequest(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c1", "add", addArgs{1, 2})),
		outputCall("o1", map[string]any{"city": "Lyon", "population": 500000}))
	a := agent.NewBuilder(m).Tool(addTool()).Output(cityOutput).MustBuild()
	mustRun(t, a, "go")
	for i, r := range m.Requests() {
		names := []string{}
		for _, d := range r.Params.Tools {
			names = append(names, d.Name)
		}
		if strings.Join(names, ",") != "add,final_result" {
			t.Fatalf("request %d tools %v", i, names)
		}
	}
}

func TestInvalidOutputIsRetriedThenCorrected(t *testing.T) {
	m := model.NewTestModel(outputCall("o1", map[string]any{"city": "Paris"}),
		outputCall("o2", map[string]any{"city": "Paris", "population": 1}))
	a := agent.NewBuilder(m).Output(cityOutput).MustBuild()
	res := mustRun(t, a, "go")
	if string(res.OutputValue) != `{"city":"Paris","population":1}` {
		t.Fatalf("value %s", res.OutputValue)
	}
	second := m.Requests()[1].Messages
	p := second[len(second)-1].Parts[0]
	if p.Kind != model.KindRetryPrompt || p.ToolCallID != "o1" || !strings.Contains(p.Text, "population") {
		t.Fatalf("retry prompt %+v", p)
	}
}

func TestOutputRetryBudgetExhausted(t *testing.T) {
	bad := map[string]any{"city": 3}
	m := model.NewTestModel(outputCall("o1", bad), outputCall("o2", bad), outputCall("o3", bad))
	a := agent.NewBuilder(m).Output(cityOutput).OutputRetries(1).MustBuild()
	res, err := a.Run(context.Background(), "go")
	var rl *agent.RetryLimitError
	if !errors.As(err, &rl) || !rl.Output || rl.MaxRetries != 1 || !errors.Is(err, agent.ErrRetryLimit) {
		t.Fatalf("err %v", err)
	}
	if res.Status != agent.StatusFailed || len(m.Requests()) != 2 || !strings.Contains(err.Error(), "output \"final_result\"") {
		t.Fatalf("status %s requests %d err %v", res.Status, len(m.Requests()), err)
	}
}

func TestOutputRetriesDefaultToMaxRetries(t *testing.T) {
	bad := map[string]any{}
	m := model.NewTestModel(outputCall("o1", bad), outputCall("o2", bad), outputCall("o3", bad))
	_, err := agent.NewBuilder(m).Output(cityOutput).MaxRetries(2).MustBuild().Run(context.Background(), "go")
	var rl *agent.RetryLimitError
	if !errors.As(err, &rl) || rl.MaxRetries != 2 || len(m.Requests()) != 3 {
		t.Fatalf("err %v requests %d", err, len(m.Requests()))
	}
}

func TestOutputValidatorModelRetryAndRewrite(t *testing.T) {
	var seen []int
	v := func(_ context.Context, tc *tool.Context, value json.RawMessage) (json.RawMessage, error) {
		seen = append(seen, tc.Retry)
		var c struct {
			City string `json:"city"`
		}
		_ = json.Unmarshal(value, &c)
		if c.City != "Paris" {
			return nil, tool.ModelRetry("the city must be Paris")
		}
		return json.RawMessage(`{"city":"PARIS","population":0}`), nil
	}
	spec := cityOutput
	spec.Validators = []agent.OutputValidator{v}
	m := model.NewTestModel(outputCall("o1", map[string]any{"city": "Lyon", "population": 1}),
		outputCall("o2", map[string]any{"city": "Paris", "population": 1}))
	res := mustRun(t, agent.NewBuilder(m).Output(spec).MustBuild(), "go")
	if string(res.OutputValue) != `{"city":"PARIS","population":0}` {
		t.Fatalf("value %s", res.OutputValue)
	}
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 1 {
		t.Fatalf("retries seen by the validator %v", seen)
	}
	msgs := m.Requests()[1].Messages
	if p := msgs[len(msgs)-1].Parts[0]; p.Kind != model.KindRetryPrompt || p.Text != "the city must be Paris" {
		t.Fatalf("retry prompt %+v", p)
	}
}

func TestOutputValidatorFailureFailsTheRun(t *testing.T) {
	spec := cityOutput
	spec.Validators = []agent.OutputValidator{func(context.Context, *tool.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("database down")
	}}
	m := model.NewTestModel(outputCall("o1", map[string]any{"city": "Lyon", "population": 1}))
	_, err := agent.NewBuilder(m).Output(spec).MustBuild().Run(context.Background(), "go")
	if !errors.Is(err, agent.ErrOutput) || !strings.Contains(err.Error(), "database down") || len(m.Requests()) != 1 {
		t.Fatalf("err %v", err)
	}
}

func TestTextWhenOutputRequiredIsRetried(t *testing.T) {
	m := model.NewTestModel(text("Paris, about two million"), outputCall("o1", map[string]any{"city": "Paris", "population": 2}))
	res := mustRun(t, agent.NewBuilder(m).Output(cityOutput).MustBuild(), "go")
	if res.Status != agent.StatusCompleted || string(res.OutputValue) == "" {
		t.Fatalf("res %+v", res)
	}
	msgs := m.Requests()[1].Messages
	if p := msgs[len(msgs)-1].Parts[0]; p.Kind != model.KindRetryPrompt || p.Text != "Please include your response in a tool call." {
		t.Fatalf("retry prompt %+v", p)
	}
}

func TestOutputCallWinsOverOtherCalls(t *testing.T) {
	ran := false
	side := tool.New("side", "a side effect", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran = true
		return tool.Result{Content: "done"}, nil
	})
	m := model.NewTestModel(calls(model.Call("s1", "side", map[string]any{}),
		model.Call("o1", "final_result", map[string]any{"city": "Oslo", "population": 7}),
		model.Call("s2", "side", map[string]any{})))
	res := mustRun(t, agent.NewBuilder(m).Tool(side).Output(cityOutput).MustBuild(), "go")
	if ran || string(res.OutputValue) != `{"city":"Oslo","population":7}` {
		t.Fatalf("ran %v value %s", ran, res.OutputValue)
	}
	rets := res.Messages[len(res.Messages)-1].Returns()
	want := []string{"Tool not executed - a final result was already processed.", "Final result processed.", "Tool not executed - a final result was already processed."}
	if len(rets) != 3 {
		t.Fatalf("returns %+v", rets)
	}
	for i, r := range rets {
		if r.Content != want[i] || r.ToolCallID != []string{"s1", "o1", "s2"}[i] {
			t.Fatalf("return %d: %+v", i, r)
		}
	}
	if res.Usage.ToolCalls != 0 {
		t.Fatalf("tool calls counted %d", res.Usage.ToolCalls)
	}
}

func TestInvalidOutputCallWithOtherCalls(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c1", "add", addArgs{1, 2}), model.Call("o1", "final_result", map[string]any{})),
		outputCall("o2", map[string]any{"city": "Rome", "population": 3}))
	res := mustRun(t, agent.NewBuilder(m).Tool(addTool()).Output(cityOutput).MustBuild(), "go")
	if res.Usage.ToolCalls != 1 || string(res.OutputValue) != `{"city":"Rome","population":3}` {
		t.Fatalf("usage %+v value %s", res.Usage, res.OutputValue)
	}
	parts := m.Requests()[1].Messages[2].Parts
	if len(parts) != 2 || parts[0].Kind != model.KindToolReturn || parts[1].Kind != model.KindRetryPrompt || parts[1].ToolCallID != "o1" {
		t.Fatalf("parts %+v", parts)
	}
}

func TestNativeOutput(t *testing.T) {
	spec := cityOutput
	spec.Mode = model.OutputNative
	m := model.NewTestModel(text("not json"), text(`{"city":"Bern"}`), text(` {"city":"Bern","population":1} `))
	res := mustRun(t, agent.NewBuilder(m).Output(spec).MustBuild(), "go")
	if string(res.OutputValue) != `{"city":"Bern","population":1}` {
		t.Fatalf("value %s", res.OutputValue)
	}
	reqs := m.Requests()
	if p := reqs[0].Params; len(p.Tools) != 0 || p.Output == nil || p.Output.Mode != model.OutputNative {
		t.Fatalf("params %+v", p)
	}
	if p := reqs[1].Messages[2].Parts[0]; p.Kind != model.KindRetryPrompt || !strings.Contains(p.Text, "not valid JSON") {
		t.Fatalf("first retry %+v", p)
	}
	if p := reqs[2].Messages[4].Parts[0]; p.Kind != model.KindRetryPrompt || !strings.Contains(p.Text, "population") {
		t.Fatalf("second retry %+v", p)
	}
}

func TestRefusalWithOutputFailsTheRun(t *testing.T) {
	m := model.NewTestModel(model.Response(model.RefusalPart("I can't help with that")))
	_, err := agent.NewBuilder(m).Output(cityOutput).MustBuild().Run(context.Background(), "go")
	if !errors.Is(err, agent.ErrModel) || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "I can't help with that") {
		t.Fatalf("err %v", err)
	}
}

func TestRefusalIsTheTextOfAPlainRun(t *testing.T) {
	m := model.NewTestModel(model.Response(model.RefusalPart("no")))
	if res := mustRun(t, agent.NewBuilder(m).MustBuild(), "go"); res.Output != "no" {
		t.Fatalf("output %q", res.Output)
	}
}

func TestOutputConfigErrors(t *testing.T) {
	m := model.TextModel("x")
	for name, b := range map[string]*agent.Builder{
		"no schema":  agent.NewBuilder(m).Output(agent.OutputSpec{}),
		"bad mode":   agent.NewBuilder(m).Output(agent.OutputSpec{Schema: cityOutput.Schema, Mode: "xml"}),
		"bad schema": agent.NewBuilder(m).Output(agent.OutputSpec{Schema: map[string]any{"type": 3}}),
		"name taken": agent.NewBuilder(m).Tool(addTool()).Output(agent.OutputSpec{Name: "add", Schema: cityOutput.Schema}),
		"negative":   agent.NewBuilder(m).Output(cityOutput).OutputRetries(-1),
	} {
		if _, err := b.Build(); !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	a := agent.NewBuilder(m).Output(cityOutput).MustBuild()
	if _, err := a.Run(context.Background(), "go", agent.WithTools(tool.New("final_result", "", nil, nil))); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("run tool named like the output: %v", err)
	}
}

func TestSecondOutputCallOfAResponseGetsAReturn(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("o1", "final_result", map[string]any{}), model.Call("o2", "final_result", map[string]any{})),
		outputCall("o3", map[string]any{"city": "Rome", "population": 3}))
	mustRun(t, agent.NewBuilder(m).Output(cityOutput).MustBuild(), "go")
	parts := m.Requests()[1].Messages[2].Parts
	if len(parts) != 2 || parts[0].Kind != model.KindRetryPrompt || parts[0].ToolCallID != "o1" ||
		parts[1].Kind != model.KindToolReturn || parts[1].Return.ToolCallID != "o2" {
		t.Fatalf("parts %+v", parts)
	}
}

func TestOutputSpecToolName(t *testing.T) {
	if got := (agent.OutputSpec{}).ToolName(); got != agent.DefaultOutputName {
		t.Errorf("ToolName of an unnamed spec = %q", got)
	}
	if got := (agent.OutputSpec{Name: "city"}).ToolName(); got != "city" {
		t.Errorf("ToolName = %q, want city", got)
	}
}
