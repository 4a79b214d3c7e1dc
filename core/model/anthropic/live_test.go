package anthropic_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
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
	modeltest.LiveToolRoundTrip(t, func(t *testing.T, streaming bool) model.Model {
		return liveModel(t, anthropic.Options{Streaming: streaming, MaxTokens: 512})
	})
}

func TestLiveBadKeyIsProviderError(t *testing.T) {
	liveModel(t, anthropic.Options{})
	m := must(anthropic.NewFromConfig("claude-haiku-4-5", anthropic.Options{Config: anthropic.Config{APIKey: testKey}}))
	_, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	if pe := modeltest.ProviderError(t, err, testKey); pe.StatusCode != 401 {
		t.Fatalf("provider error = %+v", *pe)
	}
}
