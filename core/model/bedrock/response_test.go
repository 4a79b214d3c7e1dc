package bedrock_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
)

func TestTextResponse(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	got, err := f.model(0).Request(context.Background(), ask("Hi"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "Hello! How can I help you today?" || got.FinishReason != model.FinishStop {
		t.Fatalf("got %+v", got)
	}
	if got.Provider != "bedrock" || got.ModelName != testModel || got.ResponseID != "req-1" {
		t.Fatalf("provider %q model %q id %q", got.Provider, got.ModelName, got.ResponseID)
	}
	if *got.Usage != (model.Usage{Requests: 1, InputTokens: 12, OutputTokens: 9}) {
		t.Fatalf("usage = %+v", *got.Usage)
	}
	if p := f.Request(0).Path; p != "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse" {
		t.Fatalf("path = %s", p)
	}
}

func TestParallelToolUse(t *testing.T) {
	f := newFake(t, reply{file: "tool_use_parallel.json"})
	got, err := f.model(0).Request(context.Background(), ask("Top songs?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	calls := got.ToolCalls()
	if len(calls) != 2 || got.FinishReason != model.FinishToolCalls {
		t.Fatalf("calls = %+v, finish %q", calls, got.FinishReason)
	}
	if calls[0].ID != "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q" || calls[0].Name != "top_song" || string(calls[0].Arguments) != `{"sign":"WZPZ"}` {
		t.Fatalf("call 0 = %+v (%s)", calls[0], calls[0].Arguments)
	}
	// Numbers keep their digits through the SDK's document type.
	var args map[string]any
	d := json.NewDecoder(bytesReader(calls[1].Arguments))
	d.UseNumber()
	if err := d.Decode(&args); err != nil || args["limit"] != json.Number("12345678901234567890") {
		t.Fatalf("call 1 arguments = %s (%v)", calls[1].Arguments, err)
	}
}

func TestReasoningResponse(t *testing.T) {
	f := newFake(t, reply{file: "reasoning.json"})
	got, err := f.model(0).Request(context.Background(), ask("2+2?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Parts) != 3 {
		t.Fatalf("parts = %+v", got.Parts)
	}
	th := got.Parts[0]
	if th.Kind != model.KindThinking || th.Text != "The user asks for 2+2. That is 4." || *th.Thinking != (model.Thinking{Provider: "bedrock", Signature: "ErUBCkgIARABGAIiQJ0"}) {
		t.Fatalf("thinking = %+v %+v", th, th.Thinking)
	}
	if red := got.Parts[1]; red.Kind != model.KindThinking || red.Thinking.Encrypted != "RW1Rd0FoZ0JFZ3kzdmEzcHppeA==" {
		t.Fatalf("redacted = %+v %+v", red, red.Thinking)
	}
	// Sent back, both go as reasoningContent blocks of the assistant turn.
	f2 := newFake(t, reply{file: "text.json"})
	history := append(ask("2+2?"), got, model.Request(model.UserPrompt("and 3+3?")))
	if _, err := f2.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	msgs := f2.body(0)["messages"].([]any)
	content := msgs[1].(map[string]any)["content"].([]any)
	want := `[{"reasoningContent":{"reasoningText":{"signature":"ErUBCkgIARABGAIiQJ0","text":"The user asks for 2+2. That is 4."}}},{"reasoningContent":{"redactedContent":"RW1Rd0FoZ0JFZ3kzdmEzcHppeA=="}},{"text":"2 + 2 = 4."}]`
	if s := string(mustJSON(t, content)); s != want {
		t.Fatalf("assistant content = %s\nwant %s", s, want)
	}
}

func TestUsageCache(t *testing.T) {
	f := newFake(t, reply{file: "usage_cache.json"})
	got, err := f.model(0).Request(context.Background(), ask("Hi"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	want := model.Usage{Requests: 1, InputTokens: 1810, OutputTokens: 5, CacheReadTokens: 1200, CacheWriteTokens: 600}
	if *got.Usage != want || got.FinishReason != model.FinishLength {
		t.Fatalf("usage = %+v, finish %q", *got.Usage, got.FinishReason)
	}
}

func TestProviderNameOption(t *testing.T) {
	f := newFake(t, reply{file: "reasoning.json"})
	got, err := f.modelWith(0, bedrock.Options{ProviderName: "gateway"}).Request(context.Background(), ask("Hi"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Provider != "gateway" || got.Parts[0].Thinking.Provider != "bedrock" {
		t.Fatalf("provider %q, thinking provider %q", got.Provider, got.Parts[0].Thinking.Provider)
	}
}
