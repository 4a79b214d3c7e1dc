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
	modeltest.LiveToolRoundTrip(t, func(t *testing.T, streaming bool) model.Model {
		return liveModel(t, google.Options{Streaming: streaming, IncludeThoughts: true})
	})
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
