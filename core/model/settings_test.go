package model_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func ptr[T any](v T) *T { return &v }

func TestSettingsMergeRunOverAgent(t *testing.T) {
	agent := model.Settings{Temperature: ptr(0.2), MaxTokens: ptr(100), ToolChoice: "auto",
		ExtraHeaders: map[string]string{"a": "1", "b": "1"}, ExtraBody: map[string]any{"x": 1}}
	run := model.Settings{Temperature: ptr(0.9), Stop: []string{"END"}, ExtraHeaders: map[string]string{"b": "2"}}
	got := agent.Merge(run)
	want := model.Settings{Temperature: ptr(0.9), MaxTokens: ptr(100), ToolChoice: "auto", Stop: []string{"END"},
		ExtraHeaders: map[string]string{"a": "1", "b": "2"}, ExtraBody: map[string]any{"x": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged\n got %+v\nwant %+v", got, want)
	}
	if agent.ExtraHeaders["b"] != "1" || *agent.Temperature != 0.2 {
		t.Fatal("Merge modified its receiver")
	}
}

func TestThinkingAndRefusalPartsRoundTrip(t *testing.T) {
	in := model.Response(
		model.ThinkingPart("let me think", model.Thinking{Provider: "anthropic", Signature: "sig"}),
		model.RefusalPart("I can't help with that"),
		model.TextPart("ok"),
	)
	in.FinishReason = model.FinishStop
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out model.Message
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip\n got %+v\nwant %+v\njson %s", out, in, b)
	}
	if out.Text() != "ok" {
		t.Fatalf("Text() = %q, want only the text parts", out.Text())
	}
}

func TestProviderErrorIsAModelError(t *testing.T) {
	err := error(&model.ProviderError{Provider: "openai", StatusCode: 401, Code: "invalid_api_key", Message: "Incorrect API key provided"})
	if !errors.Is(err, model.ErrModel) {
		t.Fatal("not a model error")
	}
	if got, want := err.Error(), "model: request failed: openai returned HTTP 401 (invalid_api_key): Incorrect API key provided"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
