package bridge

import (
	"context"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"

	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

func TestProviderModelSpecs(t *testing.T) {
	neg := -1
	for _, bad := range []modelSpec{
		{Kind: "openai"},
		{Kind: "anthropic", Provider: &providerSpec{}},
		{Kind: "openai-responses", Provider: &providerSpec{Model: "gpt-4.1", TimeoutMS: -5}},
		{Kind: "openai", Provider: &providerSpec{Model: "gpt-4.1", MaxRetries: &neg}},
		{Kind: "openai", Provider: &providerSpec{Model: "gpt-4.1", IdleTimeoutMS: -1}},
		{Kind: "anthropic", Provider: &providerSpec{Model: "claude", FirstByteTimeoutMS: -1}},
		{Kind: "anthropic", Provider: &providerSpec{Model: "claude", ConnectTimeoutMS: -1}},
		{Kind: "openai", Provider: &providerSpec{Model: "gpt-4.1", MaxRetryAfterMS: -1}},
		{Kind: "google", Provider: &providerSpec{Model: "gemini-2.5-flash", Project: "p"}},
		{Kind: "bedrock", Provider: &providerSpec{}},
		{Kind: "bedrock", Provider: &providerSpec{Model: "anthropic.claude", AWSAccessKeyID: "AKIA"}},
	} {
		_, err := buildModel(bad)
		var ae *abiError
		if !errors.As(err, &ae) || ae.Type != "invalid_spec" {
			t.Errorf("%+v: err = %v, want invalid_spec", bad, err)
		}
	}
	for kind, built := range map[string]func(any) bool{
		"openai":           func(m any) bool { _, ok := m.(*openai.Chat); return ok },
		"openai-responses": func(m any) bool { _, ok := m.(*openai.Responses); return ok },
		"anthropic":        func(m any) bool { _, ok := m.(*anthropic.Model); return ok },
		"bedrock":          func(m any) bool { _, ok := m.(*bedrock.Model); return ok },
		"google":           func(m any) bool { _, ok := m.(*google.Model); return ok },
		"google-vertex":    func(m any) bool { _, ok := m.(*google.Model); return ok },
	} {
		h, err := buildModel(modelSpec{Kind: kind, Provider: &providerSpec{Model: "m", BaseURL: "http://127.0.0.1:1", Stream: true, MaxTokens: 10, ThinkingBudget: 5}})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !built(h.m) {
			t.Errorf("%s built %T", kind, h.m)
		}
	}
}

// A profile picks an OpenAI-compatible server's quirks; a fallback is
// built over the models of its handles.
func TestProfileAndFallbackSpecs(t *testing.T) {
	t.Setenv("VLLM_BASE_URL", "")
	t.Setenv("OLLAMA_BASE_URL", "127.0.0.1:1") // a bare host, as Ollama's clients write it; nothing listens
	for _, bad := range []modelSpec{
		{Kind: "openai", Provider: &providerSpec{Model: "m", Profile: "lmstudio"}},
		{Kind: "anthropic", Provider: &providerSpec{Model: "m", Profile: "ollama"}},
		{Kind: "openai", Provider: &providerSpec{Model: "m", Profile: "vllm"}}, // no base URL
		{Kind: "fallback"},
		{Kind: "fallback", Models: []int64{-7}},
	} {
		_, err := buildModel(bad)
		var ae *abiError
		if !errors.As(err, &ae) || (ae.Type != "invalid_spec" && ae.Type != "bad_handle") {
			t.Errorf("%+v: err = %v", bad, err)
		}
	}
	zero := 0
	h, err := buildModel(modelSpec{Kind: "openai", Provider: &providerSpec{Model: "llama3.2", Profile: "ollama", MaxRetries: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	primary := handles.add(h)
	defer handles.remove(primary)
	second := handles.add(&modelHandle{m: model.NewAutoTestModel()})
	defer handles.remove(second)
	if _, err := buildModel(modelSpec{Kind: "fallback", Models: []int64{primary, second}, FallbackOn: []string{"teapot"}}); err == nil {
		t.Error("unknown fallback kind accepted")
	}
	f, err := buildModel(modelSpec{Kind: "fallback", Models: []int64{primary, second}, FallbackOn: []string{"connection", "404"}})
	if err != nil {
		t.Fatal(err)
	}
	fm, ok := f.m.(*model.Fallback)
	if !ok || len(fm.Models()) != 2 {
		t.Fatalf("built %T", f.m)
	}
	// The connection fails, and the test model answers.
	got, err := fm.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("hi"))}, model.Params{})
	if err != nil || len(got.Attempts) != 1 || got.Attempts[0].Provider != "ollama" {
		t.Fatalf("%v %+v", err, got)
	}
	if e := toABIError(&model.FallbackError{Attempts: []model.Attempt{{Provider: "openai"}}}); e.Type != "model" || e.Code != "fallback_failed" || len(e.Attempts) != 1 {
		t.Errorf("fallback error: %+v", e)
	}
}
