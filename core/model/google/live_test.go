package google_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// liveModel returns a model against the real Gemini API, or skips the test
// when neither GOOGLE_API_KEY nor GEMINI_API_KEY is set. GEMINI_LIVE_MODEL
// picks the model.
func liveModel(t *testing.T, o google.Options) *google.Model {
	t.Helper()
	if os.Getenv(google.EnvAPIKey) == "" && os.Getenv(google.EnvGeminiAPIKey) == "" {
		t.Skip("live test: set GOOGLE_API_KEY (or GEMINI_API_KEY) to run it against the real API")
	}
	name := os.Getenv("GEMINI_LIVE_MODEL")
	if name == "" {
		name = "gemini-2.5-flash"
	}
	o.Timeout = 2 * time.Minute
	m, err := google.NewFromConfig(name, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLiveToolRoundTrip asks for a tool call, answers it and expects a
// final text, streamed and not, with the thoughts (and their signatures)
// sent back.
func TestLiveToolRoundTrip(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		m := liveModel(t, google.Options{Streaming: streaming, IncludeThoughts: true})
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

// TestLiveNativeOutput asks for JSON matching a schema.
func TestLiveNativeOutput(t *testing.T) {
	m := liveModel(t, google.Options{})
	schema := map[string]any{"type": "object", "properties": map[string]any{"capital": map[string]any{"type": "string"}}, "required": []any{"capital"}}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("The capital of France?"))},
		model.Params{Output: &model.Output{Mode: model.OutputNative, Name: "answer", Schema: schema}})
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Capital string }
	if err := json.Unmarshal([]byte(resp.Text()), &v); err != nil || v.Capital == "" {
		t.Fatalf("text %q: %v", resp.Text(), err)
	}
}

func TestLiveBadKeyIsProviderError(t *testing.T) {
	liveModel(t, google.Options{})
	m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{APIKey: testKey}}))
	_, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	if pe := modeltest.ProviderError(t, err, testKey); pe.StatusCode != 400 && pe.StatusCode != 401 && pe.StatusCode != 403 {
		t.Fatalf("provider error = %+v", *pe)
	}
}
