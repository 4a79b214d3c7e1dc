package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
)

// Environment variables read by [NewFromConfig].
const (
	EnvAPIKey  = "ANTHROPIC_API_KEY"
	EnvBaseURL = "ANTHROPIC_BASE_URL"
)

// defaultBaseURL is where the SDK sends requests when no base URL is set.
const defaultBaseURL = "https://api.anthropic.com"

// DefaultMaxRetries is how many times a failed request is retried when
// Config.MaxRetries is nil.
const DefaultMaxRetries = 2

// ErrMissingAPIKey is returned by every request of a model built by
// [NewFromConfig] with no API key (neither Config.APIKey nor
// ANTHROPIC_API_KEY) and Anthropic's own base URL (unset, or
// https://api.anthropic.com). errors.Is(err,
// model.ErrModel) holds too.
var ErrMissingAPIKey = errors.New("anthropic: no API key: set the ANTHROPIC_API_KEY environment variable or pass an API key")

// Config describes how [NewFromConfig] reaches the Messages API. The zero
// Config reads the key and base URL from the environment and uses the
// SDK's defaults for everything else.
type Config struct {
	// APIKey falls back to ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL falls back to ANTHROPIC_BASE_URL, then to the SDK's default.
	BaseURL string
	// Headers are added to every request.
	Headers map[string]string
	// MaxRetries bounds the retries of one request (408, 409, 429, 5xx
	// and failed connections, under model.HTTPPolicy's rules, the same
	// for every provider); nil means DefaultMaxRetries, 0 disables them,
	// negative is an error.
	MaxRetries *int
	// Timeout bounds one request, its retries included; 0 means no bound
	// beyond the context (and Settings.TimeoutMS); negative is an error.
	Timeout time.Duration
	// HTTPClient replaces the SDK's default HTTP client.
	HTTPClient *http.Client
}

// NewFromConfig builds a Model named name (for example
// "claude-sonnet-4-5") over a client configured by o.Config. The
// environment is read now, once; the SDK's other environment defaults
// (profiles, auth tokens, custom headers) are not used, so what o.Config
// says is what is sent. An empty name or an invalid setting is an error;
// a missing key is not: every request returns ErrMissingAPIKey instead.
func NewFromConfig(name string, o Options) (*Model, error) {
	if err := o.check(name, true); err != nil {
		return nil, err
	}
	cfg := o.Config
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv(EnvAPIKey)
	}
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv(EnvBaseURL)
	}
	retries := DefaultMaxRetries
	if cfg.MaxRetries != nil {
		retries = *cfg.MaxRetries
	}
	// The SDK's own retries are off: the model's HTTPPolicy retries.
	ro := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0)}
	if base != "" {
		ro = append(ro, option.WithBaseURL(base))
	}
	if key != "" {
		ro = append(ro, option.WithAPIKey(key))
	}
	if cfg.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(cfg.HTTPClient))
	}
	for k, v := range cfg.Headers {
		ro = append(ro, option.WithHeader(k, v))
	}
	m := newModel(sdk.NewClient(ro...), name, o, retries, append([]string{key}, model.CredentialHeaderValues(cfg.Headers)...)...)
	m.timeout = cfg.Timeout
	m.keyless = key == ""
	if key == "" && (base == "" || strings.HasPrefix(base, defaultBaseURL)) {
		m.initErr = fmt.Errorf("%w: %w", model.ErrModel, ErrMissingAPIKey)
	}
	return m, nil
}
