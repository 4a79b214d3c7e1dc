package bridge

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
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
