package anthropic_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// liveModel returns a model against the real API, or skips the test when
// ANTHROPIC_API_KEY is not set. ANTHROPIC_LIVE_MODEL picks the model.
func liveModel(t *testing.T, o anthropic.Options) *anthropic.Model {
	t.Helper()
	if os.Getenv(anthropic.EnvAPIKey) == "" {
		t.Skip("live test: set ANTHROPIC_API_KEY to run it against the real API")
	}
	name := os.Getenv("ANTHROPIC_LIVE_MODEL")
	if name == "" {
		name = "claude-haiku-4-5"
	}
	o.Timeout = 2 * time.Minute
	m, err := anthropic.NewFromConfig(name, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLiveToolRoundTrip asks for a tool call, answers it and expects a
// final text, streamed and not.
func TestLiveToolRoundTrip(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		m := liveModel(t, anthropic.Options{Streaming: streaming, MaxTokens: 512})
		weather := tool.Definition{Name: "get_weather", Description: "Current weather of a city",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}
		params := model.Params{Tools: []tool.Definition{weather}}
		history := []model.Message{model.Request(model.SystemPrompt("Use the tools."), model.UserPrompt("What's the weather in Paris?"))}
		ctx := context.Background()
		first, err := m.Request(ctx, history, params)
		if err != nil {
			t.Fatal(err)
		}
		calls := first.ToolCalls()
		if len(calls) == 0 || !json.Valid(calls[0].Arguments) {
			t.Fatalf("streaming=%v: no tool call: %+v", streaming, first.Parts)
		}
		var returns []model.Part
		for _, c := range calls {
			returns = append(returns, model.ToolReturn(tool.Return{ToolCallID: c.ID, Name: c.Name, Content: map[string]any{"temp_c": 18, "sky": "clear"}}))
		}
		history = append(history, first, model.Request(returns...))
		final, err := m.Request(ctx, history, params)
		if err != nil {
			t.Fatal(err)
		}
		if final.Text() == "" || final.FinishReason != model.FinishStop || final.Usage.InputTokens == 0 {
			t.Fatalf("streaming=%v: final = %+v usage %+v", streaming, final.Parts, final.Usage)
		}
	}
}

func TestLiveBadKeyIsProviderError(t *testing.T) {
	liveModel(t, anthropic.Options{})
	m := must(anthropic.NewFromConfig("claude-haiku-4-5", anthropic.Options{Config: anthropic.Config{APIKey: testKey}}))
	_, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	if pe := modeltest.ProviderError(t, err, testKey); pe.StatusCode != 401 {
		t.Fatalf("provider error = %+v", *pe)
	}
}
