package openai

import (
	"net/http"
	"os"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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
	// MaxRetries bounds the retries of 429, 5xx and dropped connections
	// (nil: 2, the SDK's default; 0: none).
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
	// noKey fails every request: the model was built from a Config
	// without a key that would reach OpenAI.
	noKey bool
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

func buildOptions(opts []Option) options {
	o := options{provider: DefaultProvider}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.provider == "" {
		o.provider = DefaultProvider
	}
	return o
}

// clientFromConfig builds the SDK client cfg describes, and reports whether
// it has no key although it would reach OpenAI.
func clientFromConfig(cfg Config) (client sdk.Client, noKey bool) {
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
	if cfg.MaxRetries != nil {
		opts = append(opts, option.WithMaxRetries(max(*cfg.MaxRetries, 0)))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return sdk.NewClient(opts...), key == "" && (base == "" || sameURL(base, defaultBaseURL))
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
