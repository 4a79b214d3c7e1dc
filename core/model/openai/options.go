package openai

import (
	"net/http"
	"os"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/starweaver-go/starweaver/core/model"
)

// DefaultProvider is what Message.Provider says unless WithProviderName
// changes it.
const DefaultProvider = "openai"

// defaultBaseURL is the SDK's default; a model built from a Config without
// a key fails its requests only when it would reach it.
const defaultBaseURL = "https://api.openai.com/v1/"

// Config describes how to reach an OpenAI or OpenAI-compatible server. The
// zero value reaches OpenAI with the key in OPENAI_API_KEY.
type Config struct {
	// APIKey falls back to OPENAI_API_KEY, read when the model is built.
	// With neither, requests to OpenAI fail naming OPENAI_API_KEY; a custom
	// BaseURL (a local server) needs no key.
	APIKey string
	// BaseURL falls back to OPENAI_BASE_URL, then to OpenAI's API.
	BaseURL string
	// Headers are sent with every request.
	Headers map[string]string
	// MaxRetries bounds the retries of 408, 409, 429, 5xx and failed
	// connections (nil: model.DefaultMaxRetries; 0: none), made under
	// model.HTTPPolicy's rules (the same for every provider).
	MaxRetries *int
	// Timeout bounds one request, its retries included (0: none besides the
	// context's and a request's own Settings.TimeoutMS).
	Timeout time.Duration
	// HTTPClient replaces the SDK's default client.
	HTTPClient *http.Client
}

// Option configures a Chat or Responses model.
type Option func(*options)

type options struct {
	streaming bool
	provider  string
	timeout   time.Duration
	bounds    model.HTTPBounds
	secrets   []string
	// noKey fails every request: the model was built from a Config
	// without a key that would reach OpenAI.
	noKey bool
	// keyless: the model was built from a Config without a key (a
	// custom base URL); a 401 then says that OPENAI_API_KEY is unset.
	keyless bool
	// policy bounds and retries every request; redactor masks the
	// credentials in every error.
	policy   *model.HTTPPolicy
	redactor *model.Redactor
}

// WithStreaming makes the model stream each response and assemble it into
// one message (arguments split across chunks, several parallel calls, the
// usage of the last chunk). The result is the same message a non-streamed
// request returns. Stream streams whether or not this is set.
func WithStreaming(on bool) Option { return func(o *options) { o.streaming = on } }

// WithProviderName sets what Message.Provider and Thinking.Provider say
// ("openai" by default), so that an OpenAI-compatible server can name
// itself and reasoning is sent back only to the server that produced it.
func WithProviderName(name string) Option { return func(o *options) { o.provider = name } }

// WithHTTPBounds sets the connect, first-byte and idle-stream timeouts and
// the longest Retry-After waited out (see model.HTTPBounds: zero fields
// keep the defaults, negative ones remove the bound).
func WithHTTPBounds(b model.HTTPBounds) Option { return func(o *options) { o.bounds = b } }

// WithSecrets adds values (credentials the caller's client sends) that
// every error of the model masks, besides the key of a Config and the
// shape rules of model.Redactor.
func WithSecrets(values ...string) Option {
	return func(o *options) { o.secrets = append(o.secrets, values...) }
}

// buildOptions applies opts; retries is what the model's policy retries
// (0 for a caller's client, which retries on its own).
func buildOptions(opts []Option, retries int, secrets ...string) options {
	o := options{provider: DefaultProvider}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.provider == "" {
		o.provider = DefaultProvider
	}
	o.policy = model.NewHTTPPolicy(o.bounds, retries)
	o.redactor = model.NewRedactor(append(secrets, o.secrets...)...)
	return o
}

// fromConfig is what a model built from a Config knows of it.
type fromConfig struct {
	client  sdk.Client
	retries int
	secrets []string
	noKey   bool
	keyless bool
	timeout time.Duration
}

// clientFromConfig builds the SDK client cfg describes, and reports whether
// it has no key although it would reach OpenAI. The SDK's own retries are
// off: the model's HTTPPolicy retries.
func clientFromConfig(cfg Config) fromConfig {
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	// The SDK reads the same variables itself; the options below come after
	// its defaults and win.
	var opts []option.RequestOption
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	retries := model.DefaultMaxRetries
	if cfg.MaxRetries != nil {
		retries = max(*cfg.MaxRetries, 0)
	}
	opts = append(opts, option.WithMaxRetries(0))
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return fromConfig{
		client:  sdk.NewClient(opts...),
		retries: retries,
		secrets: append([]string{key}, model.CredentialHeaderValues(cfg.Headers)...),
		noKey:   key == "" && (base == "" || sameURL(base, defaultBaseURL)),
		keyless: key == "",
		timeout: cfg.Timeout,
	}
}

func sameURL(a, b string) bool {
	trim := func(s string) string {
		for len(s) > 0 && s[len(s)-1] == '/' {
			s = s[:len(s)-1]
		}
		return s
	}
	return trim(a) == trim(b)
}
