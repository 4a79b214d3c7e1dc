package bridge

import (
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// providerSpec is the part of a model spec naming a provider model:
// {"kind": "openai" | "openai-responses" | "anthropic" | "bedrock" |
// "google" | "google-vertex", "provider": {...}}.
type providerSpec struct {
	Model      string            `json:"model"`
	BaseURL    string            `json:"base_url"`
	APIKey     string            `json:"api_key"`
	Headers    map[string]string `json:"headers"`
	MaxRetries *int              `json:"max_retries"`
	TimeoutMS  int64             `json:"timeout_ms"`
	Stream     bool              `json:"stream"`
	// The bounds of each request (model.HTTPBounds), in milliseconds;
	// absent keeps the default.
	ConnectTimeoutMS   int64  `json:"connect_timeout_ms"`
	FirstByteTimeoutMS int64  `json:"first_byte_timeout_ms"`
	IdleTimeoutMS      int64  `json:"idle_timeout_ms"`
	MaxRetryAfterMS    int64  `json:"max_retry_after_ms"`
	ProviderName       string `json:"provider_name"`
	// Profile names the OpenAI-compatible server's profile
	// (openai.ProfileNamed: "ollama", "vllm", "openai-compatible").
	Profile string `json:"profile"`
	// MaxTokens and ThinkingBudget are Anthropic's.
	MaxTokens      int `json:"max_tokens"`
	ThinkingBudget int `json:"thinking_budget"`
	// Project and Location name a Vertex AI endpoint (google-vertex);
	// IncludeThoughts asks Gemini for its thought summaries.
	Project         string `json:"project"`
	Location        string `json:"location"`
	IncludeThoughts bool   `json:"include_thoughts"`
	// Bedrock's: the AWS region, profile (aws_profile), endpoint (base_url is read as
	// the endpoint too) and static credentials; absent ones come from the
	// AWS chain. api_key is a Bedrock API key (a bearer token).
	Region             string `json:"region"`
	AWSProfile         string `json:"aws_profile"`
	EndpointURL        string `json:"endpoint_url"`
	AWSAccessKeyID     string `json:"aws_access_key_id"`
	AWSSecretAccessKey string `json:"aws_secret_access_key"`
	AWSSessionToken    string `json:"aws_session_token"`
}

// buildProvider builds the provider model of kind from p.
func buildProvider(kind string, p *providerSpec) (model.Model, error) {
	if p == nil || p.Model == "" {
		return nil, specError("a %s model needs provider.model (the model name)", kind)
	}
	if p.TimeoutMS < 0 {
		return nil, specError("provider.timeout_ms must be >= 0, got %d", p.TimeoutMS)
	}
	if p.MaxRetries != nil && *p.MaxRetries < 0 {
		return nil, specError("provider.max_retries must be >= 0, got %d", *p.MaxRetries)
	}
	for _, f := range []struct {
		name string
		ms   int64
	}{{"connect_timeout_ms", p.ConnectTimeoutMS}, {"first_byte_timeout_ms", p.FirstByteTimeoutMS}, {"idle_timeout_ms", p.IdleTimeoutMS}, {"max_retry_after_ms", p.MaxRetryAfterMS}} {
		if f.ms < 0 {
			return nil, specError("provider.%s must be >= 0, got %d", f.name, f.ms)
		}
	}
	timeout := time.Duration(p.TimeoutMS) * time.Millisecond
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	bounds := model.HTTPBounds{ConnectTimeout: ms(p.ConnectTimeoutMS), FirstByteTimeout: ms(p.FirstByteTimeoutMS), IdleTimeout: ms(p.IdleTimeoutMS), MaxRetryAfter: ms(p.MaxRetryAfterMS)}
	switch kind {
	case "openai", "openai-responses":
		profile, err := openai.ProfileNamed(p.Profile)
		if err != nil {
			return nil, specError("provider.profile: %v", err)
		}
		o := openai.Options{
			Profile:      profile,
			Config:       openai.Config{APIKey: p.APIKey, BaseURL: p.BaseURL, Headers: p.Headers, MaxRetries: p.MaxRetries, Timeout: timeout},
			Streaming:    p.Stream,
			ProviderName: p.ProviderName,
			HTTPBounds:   bounds,
		}
		if kind == "openai" {
			return asModel(openai.NewChatFromConfig(p.Model, o))
		}
		return asModel(openai.NewResponsesFromConfig(p.Model, o))
	}
	if p.Profile != "" {
		return nil, specError("provider.profile is for the openai kinds, not %s", kind)
	}
	switch kind {
	case "anthropic":
		return asModel(anthropic.NewFromConfig(p.Model, anthropic.Options{
			Config:         anthropic.Config{APIKey: p.APIKey, BaseURL: p.BaseURL, Headers: p.Headers, MaxRetries: p.MaxRetries, Timeout: timeout},
			Streaming:      p.Stream,
			MaxTokens:      max(p.MaxTokens, 0),
			ThinkingBudget: max(p.ThinkingBudget, 0),
			ProviderName:   p.ProviderName,
			HTTPBounds:     bounds,
		}))
	case "google", "google-vertex":
		vertex := kind == "google-vertex"
		if !vertex && (p.Project != "" || p.Location != "") {
			return nil, specError("provider.project and provider.location are for google-vertex models")
		}
		return asModel(google.NewFromConfig(p.Model, google.Options{
			Config: google.Config{APIKey: p.APIKey, BaseURL: p.BaseURL, Headers: p.Headers, MaxRetries: p.MaxRetries, Timeout: timeout,
				Vertex: vertex, Project: p.Project, Location: p.Location},
			Streaming:       p.Stream,
			ThinkingBudget:  max(p.ThinkingBudget, 0),
			IncludeThoughts: p.IncludeThoughts,
			ProviderName:    p.ProviderName,
			HTTPBounds:      bounds,
		}))
	case "bedrock":
		endpoint := p.EndpointURL
		if endpoint == "" {
			endpoint = p.BaseURL
		}
		return asModel(bedrock.NewFromConfig(p.Model, bedrock.Options{
			Config: bedrock.Config{Region: p.Region, Profile: p.AWSProfile, EndpointURL: endpoint, APIKey: p.APIKey,
				AccessKeyID: p.AWSAccessKeyID, SecretAccessKey: p.AWSSecretAccessKey, SessionToken: p.AWSSessionToken,
				Headers: p.Headers, MaxRetries: p.MaxRetries, Timeout: timeout},
			Streaming:    p.Stream,
			MaxTokens:    max(p.MaxTokens, 0),
			ProviderName: p.ProviderName,
			HTTPBounds:   bounds,
		}))
	}
	return nil, fmt.Errorf("unreachable provider kind %q", kind)
}

// asModel returns m as a model.Model, or a nil one with err (never a nil
// pointer in a non-nil interface).
func asModel[M model.Model](m M, err error) (model.Model, error) {
	if err != nil {
		return nil, specError("provider: %v", err)
	}
	return m, nil
}

// buildFallback builds a model.Fallback over the models of s.Models.
func buildFallback(s modelSpec) (*modelHandle, error) {
	if len(s.Models) == 0 {
		return nil, specError("a fallback model needs models (the handles of the models to ask, in order)")
	}
	models := make([]model.Model, len(s.Models))
	for i, h := range s.Models {
		mh, err := lookup[*modelHandle](h)
		if err != nil {
			return nil, err
		}
		models[i] = mh.m
	}
	var o model.FallbackOptions
	if s.FallbackOn != nil {
		on, err := model.FallbackOn(s.FallbackOn...)
		if err != nil {
			return nil, specError("fallback_on: %v", err)
		}
		o.On = on
	}
	f, err := model.NewFallback(models, o)
	if err != nil {
		return nil, specError("%v", err)
	}
	return &modelHandle{m: f}, nil
}
