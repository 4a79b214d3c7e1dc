package bedrock_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
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
	modeltest.LiveToolRoundTrip(t, func(t *testing.T, streaming bool) model.Model {
		return liveModel(t, bedrock.Options{Streaming: streaming, MaxTokens: 512})
	})
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
