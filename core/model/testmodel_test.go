package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
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
