package bedrock_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// liveModel returns a model against the real Bedrock, or skips the test
// unless BEDROCK_LIVE_MODEL names a model id the AWS chain (region and
// credentials of the environment or profile) may call.
func liveModel(t *testing.T, o bedrock.Options) *bedrock.Model {
	t.Helper()
	name := os.Getenv("BEDROCK_LIVE_MODEL")
	if name == "" {
		t.Skip("live test: set BEDROCK_LIVE_MODEL (for example us.anthropic.claude-haiku-4-5-20251001-v1:0) and AWS credentials and region to run it")
	}
	o.Timeout = 2 * time.Minute
	return must(bedrock.NewFromConfig(name, o))
}

// TestLiveToolRoundTrip asks for a tool call, answers it and expects a
// final text, streamed and not.
func TestLiveToolRoundTrip(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		m := liveModel(t, bedrock.Options{Streaming: streaming, MaxTokens: 512})
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

// TestLiveBadCredentials: a wrong secret key is a 403 with the exception
// name, and the secret never shows.
func TestLiveBadCredentials(t *testing.T) {
	live := liveModel(t, bedrock.Options{})
	m := must(bedrock.NewFromConfig(live.Name(), bedrock.Options{Config: bedrock.Config{AccessKeyID: testAccessKey, SecretAccessKey: testSecret}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if pe := modeltest.ProviderError(t, err, testSecret); pe.StatusCode != 403 {
		t.Fatalf("provider error = %+v", *pe)
	}
}
