package openai

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// Without a key anywhere, a model for OpenAI is built, and every request
// fails naming OPENAI_API_KEY, without sending anything.
func TestMissingKeyNamesTheVariable(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, m := range []model.Model{must(NewChatFromConfig("gpt-4.1", Options{})), must(NewResponsesFromConfig("gpt-4.1", Options{}))} {
		_, err := m.Request(context.Background(), hello(), model.Params{})
		var pe *model.ProviderError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "OPENAI_API_KEY") || !errors.Is(err, model.ErrModel) {
			t.Fatalf("err = %v", err)
		}
	}
	// OpenAI's base URL spelled out is still OpenAI.
	_, err := must(NewChatFromConfig("gpt-4.1", Options{Config: Config{BaseURL: "https://api.openai.com/v1"}})).Request(context.Background(), hello(), model.Params{})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

// A compatible server (vLLM, llama.cpp, Ollama) needs no key.
func TestCompatibleServerWithoutKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	srv := newServer(t, ok(t, "chat_text.json"))
	m := must(NewChatFromConfig("llama3", Options{Config: Config{BaseURL: srv.URL, Headers: map[string]string{"X-Tenant": "t1"}}, ProviderName: "ollama"}))
	got, err := m.Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Provider != "ollama" {
		t.Errorf("provider %q", got.Provider)
	}
	r := srv.last(t)
	if a := r.header.Get("Authorization"); a != "" {
		t.Errorf("Authorization sent: %q", a)
	}
	if r.header.Get("X-Tenant") != "t1" {
		t.Error("config header not sent")
	}
}

// The key and base URL fall back to the environment, read when the model
// is built.
func TestConfigFromEnvironment(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	m := must(NewResponsesFromConfig("gpt-4.1", Options{}))
	t.Setenv("OPENAI_API_KEY", "sk-changed-later")
	if _, err := m.Request(context.Background(), hello(), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if a := srv.last(t).header.Get("Authorization"); a != "Bearer sk-from-env" {
		t.Errorf("Authorization %q", a)
	}
	// Config wins over the environment.
	m = must(NewResponsesFromConfig("gpt-4.1", Options{Config: Config{APIKey: "sk-config"}}))
	if _, err := m.Request(context.Background(), hello(), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if a := srv.last(t).header.Get("Authorization"); a != "Bearer sk-config" {
		t.Errorf("Authorization %q", a)
	}
}

// Building checks the settings and returns the first invalid one; the
// model is never half built.
func TestInvalidOptionsAreErrors(t *testing.T) {
	neg := -1
	for name, build := range map[string]func() (model.Model, error){
		"empty name":        func() (model.Model, error) { return New(newSDKClient(), "", Options{}) },
		"empty name config": func() (model.Model, error) { return NewResponsesFromConfig("", Options{}) },
		"config with client": func() (model.Model, error) {
			return NewResponses(newSDKClient(), "gpt-4.1", Options{Config: Config{APIKey: "sk"}})
		},
		"negative retries": func() (model.Model, error) {
			return NewChatFromConfig("gpt-4.1", Options{Config: Config{MaxRetries: &neg}})
		},
		"negative timeout": func() (model.Model, error) {
			return NewChatFromConfig("gpt-4.1", Options{Config: Config{Timeout: -time.Second}})
		},
	} {
		m, err := build()
		if err == nil || !strings.HasPrefix(err.Error(), "openai: ") {
			t.Errorf("%s: %v, %v", name, m, err)
		}
	}
}
