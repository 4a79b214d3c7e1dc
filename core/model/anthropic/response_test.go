package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func ask(text string) []model.Message {
	return []model.Message{model.Request(model.SystemPrompt("Be brief."), model.UserPrompt(text))}
}

func TestTextResponse(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	got, err := f.model(0).Request(context.Background(), ask("Hello"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != model.KindResponse || got.Text() != "Hi! My name is Claude." {
		t.Fatalf("response = %+v", got)
	}
	if got.FinishReason != model.FinishStop || got.Provider != "anthropic" ||
		got.ResponseID != "msg_013Zva2CMHLNnXjNJJKqJ2EF" || got.ModelName != "claude-sonnet-4-5-20250929" {
		t.Fatalf("metadata = %q %q %q %q", got.FinishReason, got.Provider, got.ResponseID, got.ModelName)
	}
	if u := *got.Usage; u != (model.Usage{Requests: 1, InputTokens: 2095, OutputTokens: 503}) {
		t.Fatalf("usage = %+v", u)
	}
	body := f.Body(0)
	if jsonOf(t, body["system"]) != `[{"text":"Be brief.","type":"text"}]` {
		t.Fatalf("system = %s", jsonOf(t, body["system"]))
	}
	if jsonOf(t, body["messages"]) != `[{"content":[{"text":"Hello","type":"text"}],"role":"user"}]` {
		t.Fatalf("messages = %s", jsonOf(t, body["messages"]))
	}
	if body["model"] != "claude-sonnet-4-5" || body["max_tokens"] != float64(4096) {
		t.Fatalf("model, max_tokens = %v, %v", body["model"], body["max_tokens"])
	}
	// This SDK version sends the key as a bearer token.
	if h := f.Request(0).Header.Get("Authorization"); h != "Bearer "+testKey {
		t.Fatalf("authorization = %q", h)
	}
}

func TestParallelToolUse(t *testing.T) {
	f := newFake(t, reply{file: "tool_use_parallel.json"})
	got, err := f.model(0).Request(context.Background(), ask("Weather and time in SF?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	calls := got.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "toolu_01A09q90qw90lq917835lq9" || calls[0].Name != "get_weather" ||
		string(calls[0].Arguments) != `{"location": "San Francisco, CA"}` || calls[1].Name != "get_time" {
		t.Fatalf("calls = %+v", calls)
	}
	if got.Parts[0].Kind != model.KindText || got.FinishReason != model.FinishToolCalls {
		t.Fatalf("parts[0] = %+v, finish = %q", got.Parts[0], got.FinishReason)
	}
}

func TestThinkingAndSignature(t *testing.T) {
	f := newFake(t, reply{file: "thinking.json"})
	got, err := f.modelWith(0, anthropicThinking()).Request(context.Background(), ask("Weather in Paris?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	p := got.Parts[0]
	if p.Kind != model.KindThinking || !strings.HasPrefix(p.Text, "The user wants") ||
		*p.Thinking != (model.Thinking{Provider: "anthropic", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}) {
		t.Fatalf("thinking part = %+v %+v", p, p.Thinking)
	}
	if got.Usage.ReasoningTokens != 120 {
		t.Fatalf("reasoning tokens = %d", got.Usage.ReasoningTokens)
	}
	if jsonOf(t, f.Body(0)["thinking"]) != `{"budget_tokens":2048,"type":"enabled"}` {
		t.Fatalf("thinking config = %s", jsonOf(t, f.Body(0)["thinking"]))
	}
}

func TestRedactedThinking(t *testing.T) {
	f := newFake(t, reply{file: "redacted_thinking.json"})
	got, err := f.model(0).Request(context.Background(), ask("Analyse"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Parts) != 3 {
		t.Fatalf("parts = %+v", got.Parts)
	}
	r := got.Parts[1]
	if r.Kind != model.KindThinking || r.Text != "" || r.Thinking.Encrypted != "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" || r.Thinking.Provider != "anthropic" {
		t.Fatalf("redacted part = %+v %+v", r, r.Thinking)
	}
	if got.Text() != "Based on my analysis..." {
		t.Fatalf("text = %q", got.Text())
	}
}

func TestUsageWithCacheTokens(t *testing.T) {
	f := newFake(t, reply{file: "usage_cache.json"})
	got, err := f.model(0).Request(context.Background(), ask("Themes?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	want := model.Usage{Requests: 1, InputTokens: 21 + 188086 + 1500, OutputTokens: 393, CacheReadTokens: 1500, CacheWriteTokens: 188086}
	if *got.Usage != want {
		t.Fatalf("usage = %+v, want %+v", *got.Usage, want)
	}
	if got.FinishReason != model.FinishLength {
		t.Fatalf("finish = %q, want length for max_tokens", got.FinishReason)
	}
}

func TestRefusal(t *testing.T) {
	f := newFake(t, reply{file: "refusal.json"})
	got, err := f.model(0).Request(context.Background(), ask("something harmful"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	last := got.Parts[len(got.Parts)-1]
	if last.Kind != model.KindRefusal || last.Text != "The request asks for harmful content." || got.FinishReason != model.FinishContentFilter {
		t.Fatalf("parts = %+v, finish = %q", got.Parts, got.FinishReason)
	}
}

func TestEmptyContentIsAnError(t *testing.T) {
	f := newFake(t, reply{file: "empty_content.json"})
	_, err := f.model(0).Request(context.Background(), ask("Hi"), model.Params{})
	if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "no content blocks") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownContentBlockFails(t *testing.T) {
	f := newFake(t, reply{file: "server_tool_use.json"})
	_, err := f.model(0).Request(context.Background(), ask("Search"), model.Params{})
	if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), `unsupported content block type "server_tool_use"`) {
		t.Fatalf("err = %v", err)
	}
}
