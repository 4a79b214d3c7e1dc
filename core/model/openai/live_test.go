package openai

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// TestLive sends one tiny request to each OpenAI API. It runs only when
// OPENAI_API_KEY is set (OPENAI_LIVE_MODEL picks the model, gpt-4.1-nano by
// default); CI has no key and reaches no provider.
func TestLive(t *testing.T) {
	if os.Getenv("OPENAI_API_KEY") == "" {
		t.Skip("OPENAI_API_KEY is not set")
	}
	name := os.Getenv("OPENAI_LIVE_MODEL")
	if name == "" {
		name = "gpt-4.1-nano"
	}
	maxTok := 16
	params := model.Params{Settings: model.Settings{MaxTokens: &maxTok}}
	msgs := []model.Message{model.Request(model.UserPrompt("Reply with the single word: pong"))}
	for label, m := range map[string]model.Model{
		"chat":      must(NewChatFromConfig(name, Options{Config: Config{Timeout: time.Minute}})),
		"responses": must(NewResponsesFromConfig(name, Options{Config: Config{Timeout: time.Minute}})),
	} {
		t.Run(label, func(t *testing.T) {
			got, err := m.Request(context.Background(), msgs, params)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text() == "" || got.Usage == nil || got.Usage.InputTokens == 0 || got.ResponseID == "" {
				t.Fatalf("response: %+v", got)
			}
		})
	}
}
