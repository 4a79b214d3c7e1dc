package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
)

func TestMissingAPIKey(t *testing.T) {
	t.Setenv(anthropic.EnvAPIKey, "")
	t.Setenv(anthropic.EnvBaseURL, "")
	m := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Config{})
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if !errors.Is(err, anthropic.ErrMissingAPIKey) || !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	// Naming Anthropic's own URL is no different from leaving it unset.
	m = anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Config{BaseURL: "https://api.anthropic.com"})
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); !errors.Is(err, anthropic.ErrMissingAPIKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestEnvironmentKeyAndBaseURL(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	t.Setenv(anthropic.EnvAPIKey, "sk-ant-from-env")
	t.Setenv(anthropic.EnvBaseURL, f.srv.URL)
	m := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Config{Headers: map[string]string{"X-Team": "blue"}})
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if h := f.header(0).Get("Authorization"); h != "Bearer sk-ant-from-env" {
		t.Fatalf("authorization = %q", h)
	}
	if h := f.header(0).Get("X-Team"); h != "blue" {
		t.Fatalf("x-team = %q", h)
	}
}

// TestCustomBaseURLNeedsNoKey: a local server (a gateway, a test double)
// may need no key; only the default base URL requires one.
func TestCustomBaseURLNeedsNoKey(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	t.Setenv(anthropic.EnvAPIKey, "")
	m := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Config{BaseURL: f.srv.URL})
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if h := f.header(0).Get("Authorization"); h != "" {
		t.Fatalf("authorization = %q", h)
	}
}
