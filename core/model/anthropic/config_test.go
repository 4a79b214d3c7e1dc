package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
)

func TestMissingAPIKey(t *testing.T) {
	t.Setenv(anthropic.EnvAPIKey, "")
	t.Setenv(anthropic.EnvBaseURL, "")
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if !errors.Is(err, anthropic.ErrMissingAPIKey) || !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	// Naming Anthropic's own URL is no different from leaving it unset.
	m = must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{BaseURL: "https://api.anthropic.com"}}))
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); !errors.Is(err, anthropic.ErrMissingAPIKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestEnvironmentKeyAndBaseURL(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	t.Setenv(anthropic.EnvAPIKey, "sk-ant-from-env")
	t.Setenv(anthropic.EnvBaseURL, f.URL)
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{Headers: map[string]string{"X-Team": "blue"}}}))
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if h := f.Request(0).Header.Get("Authorization"); h != "Bearer sk-ant-from-env" {
		t.Fatalf("authorization = %q", h)
	}
	if h := f.Request(0).Header.Get("X-Team"); h != "blue" {
		t.Fatalf("x-team = %q", h)
	}
}

// TestCustomBaseURLNeedsNoKey: a local server (a gateway, a test double)
// may need no key; only the default base URL requires one.
func TestCustomBaseURLNeedsNoKey(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	t.Setenv(anthropic.EnvAPIKey, "")
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{BaseURL: f.URL}}))
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if h := f.Request(0).Header.Get("Authorization"); h != "" {
		t.Fatalf("authorization = %q", h)
	}
}

// Building checks the settings and returns the first invalid one.
func TestInvalidOptionsAreErrors(t *testing.T) {
	neg := -1
	client := sdk.NewClient()
	for name, build := range map[string]func() (*anthropic.Model, error){
		"empty name":        func() (*anthropic.Model, error) { return anthropic.New(client, "", anthropic.Options{}) },
		"empty name config": func() (*anthropic.Model, error) { return anthropic.NewFromConfig("", anthropic.Options{}) },
		"config with client": func() (*anthropic.Model, error) {
			return anthropic.New(client, "claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{APIKey: "k"}})
		},
		"negative max tokens": func() (*anthropic.Model, error) {
			return anthropic.New(client, "claude-sonnet-4-5", anthropic.Options{MaxTokens: -1})
		},
		"negative thinking": func() (*anthropic.Model, error) {
			return anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{ThinkingBudget: -1})
		},
		"negative retries": func() (*anthropic.Model, error) {
			return anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{MaxRetries: &neg}})
		},
		"negative timeout": func() (*anthropic.Model, error) {
			return anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{Timeout: -time.Second}})
		},
	} {
		if m, err := build(); m != nil || err == nil || !strings.HasPrefix(err.Error(), "anthropic: ") {
			t.Errorf("%s: %v, %v", name, m, err)
		}
	}
}
