package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestNewCheckedTestModel(t *testing.T) {
	m, err := model.NewCheckedTestModel(model.Response(model.TextPart("hi")))
	if err != nil || m.Remaining() != 1 {
		t.Fatalf("NewCheckedTestModel = %v, %v", m, err)
	}
	bad := map[string][]model.Message{
		"response 0": {{Kind: model.KindResponse}},
		"response 1": {model.Response(model.TextPart("hi")), {Kind: model.KindRequest, Parts: []model.Part{model.TextPart("x")}}},
	}
	for want, script := range bad {
		_, err := model.NewCheckedTestModel(script...)
		if !errors.Is(err, model.ErrInvalidScript) || !strings.Contains(err.Error(), want+" is not a non-empty response message") {
			t.Errorf("NewCheckedTestModel = %v, want %q", err, want)
		}
	}
}

// TestModel streams deterministically: text after each space, each call
// as start, two argument fragments and done, in part order.
func TestTestModelStream(t *testing.T) {
	m := model.NewTestModel(model.Response(
		model.ThinkingPart("let me see", model.Thinking{}),
		model.TextPart("two  calls é"),
		model.ToolCallPart("c1", "a", json.RawMessage(`{"x":"é"}`)),
		model.ToolCallPart("c2", "b", nil),
	))
	var got []model.Delta
	msg, err := m.Stream(context.Background(), nil, model.Params{}, func(d model.Delta) { got = append(got, d) })
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := *msg.Parts[2].ToolCall, *msg.Parts[3].ToolCall
	want := []model.Delta{
		{Kind: model.DeltaThinking, Text: "let "},
		{Kind: model.DeltaThinking, Text: "me "},
		{Kind: model.DeltaThinking, Text: "see"},
		{Kind: model.DeltaText, Text: "two  "},
		{Kind: model.DeltaText, Text: "calls "},
		{Kind: model.DeltaText, Text: "é"},
		{Kind: model.DeltaToolCallStart, Index: 0, Call: &model.ToolCall{ID: "c1", Name: "a"}},
		{Kind: model.DeltaToolCallArguments, Index: 0, Text: `{"x":`},
		{Kind: model.DeltaToolCallArguments, Index: 0, Text: `"é"}`},
		{Kind: model.DeltaToolCallDone, Index: 0, Call: &c1},
		{Kind: model.DeltaToolCallStart, Index: 1, Call: &model.ToolCall{ID: "c2", Name: "b"}},
		{Kind: model.DeltaToolCallArguments, Index: 1, Text: `{`},
		{Kind: model.DeltaToolCallArguments, Index: 1, Text: `}`},
		{Kind: model.DeltaToolCallDone, Index: 1, Call: &c2},
	}
	if g, w := deltasJSON(t, got), deltasJSON(t, want); g != w {
		t.Fatalf("deltas\n got %s\nwant %s", g, w)
	}
	// The fragments rebuild the parts, and the message is Request's.
	again, err := model.NewTestModel(model.Response(
		model.ThinkingPart("let me see", model.Thinking{}),
		model.TextPart("two  calls é"),
		model.ToolCallPart("c1", "a", json.RawMessage(`{"x":"é"}`)),
		model.ToolCallPart("c2", "b", nil),
	)).Request(context.Background(), nil, model.Params{})
	if err != nil || deltasJSON(t, again) != deltasJSON(t, msg) {
		t.Fatalf("Stream = %+v, Request = %+v (%v)", msg, again, err)
	}
	if len(m.Requests()) != 1 {
		t.Fatalf("%d requests recorded", len(m.Requests()))
	}
}

// With a nil handler Stream is Request; an exhausted script reports nothing.
func TestTestModelStreamNilHandlerAndExhausted(t *testing.T) {
	m := model.TextModel("hi there")
	msg, err := m.Stream(context.Background(), nil, model.Params{}, nil)
	if err != nil || msg.Text() != "hi there" {
		t.Fatalf("Stream = %+v, %v", msg, err)
	}
	called := false
	if _, err := m.Stream(context.Background(), nil, model.Params{}, func(model.Delta) { called = true }); !errors.Is(err, model.ErrModel) || called {
		t.Fatalf("exhausted: err = %v, handler called = %v", err, called)
	}
}

func deltasJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAutoTestModelCallsEachToolOnceThenSumsUp(t *testing.T) {
	m := model.NewAutoTestModel()
	ctx := context.Background()
	params := model.Params{Tools: []tool.Definition{
		{Name: "add", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer", "minimum": 2.0}},
			"required": []any{"a", "b"}}},
		{Name: "now", Parameters: map[string]any{"type": "object"}},
	}}
	history := []model.Message{model.Request(model.UserPrompt("go"))}
	first, err := m.Request(ctx, history, params)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, p := range first.Parts {
		calls = append(calls, p.ToolCall.Name+string(p.ToolCall.Arguments))
	}
	if strings.Join(calls, " ") != `add{"a":0,"b":2} now{}` {
		t.Fatalf("first response calls %v", calls)
	}
	history = append(history, first, model.Request(
		model.ToolReturn(tool.Return{ToolCallID: first.Parts[0].ToolCall.ID, Name: "add", Content: 2.0}),
		model.ToolReturn(tool.Return{ToolCallID: first.Parts[1].ToolCall.ID, Name: "now", Content: "noon"}),
	))
	second, err := m.Request(ctx, history, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.Parts[0].Text; got != `{"add":2,"now":"noon"}` {
		t.Fatalf("summary = %q", got)
	}
	// A new run in the same conversation calls the tools again.
	history = append(history, second, model.Request(model.UserPrompt("again")))
	third, _ := m.Request(ctx, history, params)
	if len(third.Parts) != 2 || third.Parts[0].ToolCall == nil {
		t.Fatalf("a new prompt should call the tools again, got %+v", third)
	}
	if m.Remaining() != 0 || len(m.Requests()) != 3 {
		t.Fatalf("Remaining = %d, Requests = %d", m.Remaining(), len(m.Requests()))
	}
}

func TestAutoTestModelAnswersStructuredOutputAndPlainPrompts(t *testing.T) {
	m := model.NewAutoTestModel()
	ctx := context.Background()
	out := &model.Output{Mode: model.OutputTool, Name: "final_result", Schema: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}
	params := model.Params{Tools: []tool.Definition{{Name: "final_result", Parameters: out.Schema}}, Output: out}
	r, err := m.Request(ctx, []model.Message{model.Request(model.UserPrompt("where?"))}, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Parts) != 1 || r.Parts[0].ToolCall.Name != "final_result" || string(r.Parts[0].ToolCall.Arguments) != `{"city":"a"}` {
		t.Fatalf("structured answer = %+v", r.Parts)
	}
	plain, _ := m.Request(ctx, []model.Message{model.Request(model.UserPrompt("hi"))}, model.Params{})
	if plain.Parts[0].Text != "ok" {
		t.Fatalf("no tools, no output: %+v", plain.Parts)
	}
}
