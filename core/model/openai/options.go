package openai

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/starweaver-go/starweaver/core/model"
)

// DefaultProvider is what Message.Provider says unless
// Options.ProviderName changes it.
const DefaultProvider = "openai"

// defaultBaseURL is the SDK's default; a model built from a Config without
// a key fails its requests only when it would reach it.
const defaultBaseURL = "https://api.openai.com/v1/"

// Config describes how to reach an OpenAI or OpenAI-compatible server. The
// zero value reaches OpenAI with the key in OPENAI_API_KEY.
type Config struct {
	// APIKey falls back to OPENAI_API_KEY (or the variable of
	// Options.Profile), read when the model is built. With neither,
	// requests to OpenAI fail naming OPENAI_API_KEY; a custom BaseURL (a
	// local server) needs no key.
	APIKey string
	// BaseURL falls back to OPENAI_BASE_URL, then to OpenAI's API (or to
	// the variable and the default of Options.Profile).
	BaseURL string
	// Headers are sent with every request.
	Headers map[string]string
	// MaxRetries bounds the retries of 408, 409, 429, 5xx and failed
	// connections (nil: model.DefaultMaxRetries; 0: none; negative: an
	// error), made under
	// model.HTTPPolicy's rules (the same for every provider).
	MaxRetries *int
	// Timeout bounds one request, its retries included (0: none besides the
	// context's and a request's own Settings.TimeoutMS; negative: an
	// error).
	Timeout time.Duration
	// HTTPClient replaces the SDK's default client.
	HTTPClient *http.Client
}

// Options configures a Chat or Responses model. The zero value is the
// defaults: no streaming, Message.Provider "openai", model.HTTPBounds'
// defaults, and (for the FromConfig constructors) the zero Config.
type Options struct {
	// Config says how to reach the server. Only NewChatFromConfig and
	// NewResponsesFromConfig read it: New and NewResponses take a client
	// the caller configured and reject a Config that is not zero.
	Config
	// Streaming makes the model stream each response and assemble it into
	// one message (arguments split across chunks, several parallel calls,
	// the usage of the last chunk). The result is the same message a
	// non-streamed request returns. Stream streams whether or not this is
	// set.
	Streaming bool
	// ProviderName is what Message.Provider and Thinking.Provider say
	// ("" means [DefaultProvider]), so that an OpenAI-compatible server can
	// name itself and reasoning is sent back only to the server that
	// produced it.
	ProviderName string
	// HTTPBounds sets the connect, first-byte and idle-stream timeouts and
	// the longest Retry-After waited out (see model.HTTPBounds: zero
	// fields keep the defaults, negative ones remove the bound).
	HTTPBounds model.HTTPBounds
	// Profile says the server's quirks and, for the FromConfig
	// constructors, where it is and which variables it reads (see
	// [ProfileNamed]); the zero value is OpenAI.
	Profile Profile
	// Secrets are values (credentials the caller's client sends) that
	// every error of the model masks, besides Config.APIKey, the
	// credential headers of Config.Headers and the shape rules of
	// model.Redactor.
	Secrets []string
}

// resolved is what a model keeps of its Options.
type resolved struct {
	streaming bool
	provider  string
	profile   Profile
	timeout   time.Duration
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

// resolve checks name and o and returns what a model keeps of them;
// retries is what the model's policy retries (0 for a caller's client,
// which retries on its own).
func resolve(name string, o Options, retries int, secrets ...string) (resolved, error) {
	if name == "" {
		return resolved{}, errors.New("openai: the model name must not be empty")
	}
	r := resolved{streaming: o.Streaming, provider: o.ProviderName, profile: o.Profile}
	if r.provider == "" {
		r.provider = o.Profile.Name
	}
	if r.provider == "" {
		r.provider = DefaultProvider
	}
	r.policy = model.NewHTTPPolicy(o.HTTPBounds, retries)
	r.redactor = model.NewRedactor(append(secrets, o.Secrets...)...)
	return r, nil
}

// forClient resolves the Options of a model over a caller's client.
func forClient(name string, o Options) (resolved, error) {
	if !o.Config.isZero() {
		return resolved{}, errors.New("openai: Options.Config is for the FromConfig constructors; New and NewResponses use the client as it is configured")
	}
	return resolve(name, o, 0)
}

// forConfig builds the client o.Config describes and resolves the Options
// of a model over it.
func forConfig(name string, o Options) (sdk.Client, resolved, error) {
	if err := o.Config.check(); err != nil {
		return sdk.Client{}, resolved{}, err
	}
	c, err := clientFromConfig(o.Config, &o.Profile)
	if err != nil {
		return sdk.Client{}, resolved{}, err
	}
	r, err := resolve(name, o, c.retries, c.secrets...)
	if err != nil {
		return sdk.Client{}, resolved{}, err
	}
	r.noKey, r.keyless, r.timeout = c.noKey, c.keyless, c.timeout
	return c.client, r, nil
}

func (c *Config) isZero() bool {
	return c.APIKey == "" && c.BaseURL == "" && c.Headers == nil && c.MaxRetries == nil && c.Timeout == 0 && c.HTTPClient == nil
}

// check reports the first invalid setting of c.
func (c *Config) check() error {
	if c.MaxRetries != nil && *c.MaxRetries < 0 {
		return fmt.Errorf("openai: Config.MaxRetries must be >= 0, got %d", *c.MaxRetries)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("openai: Config.Timeout must be >= 0, got %v", c.Timeout)
	}
	return nil
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

// clientFromConfig builds the SDK client cfg describes for a server of
// profile p, and reports whether it has no key although it would reach
// OpenAI. The SDK's own retries are off: the model's HTTPPolicy retries.
func clientFromConfig(cfg Config, p *Profile) (fromConfig, error) {
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv(p.apiKeyEnv())
	}
	base, err := p.baseURL(cfg.BaseURL)
	if err != nil {
		return fromConfig{}, err
	}
	// The SDK reads OpenAI's variables itself; the options below come
	// after its defaults and win. A server of another profile gets its
	// own key or none, never OPENAI_API_KEY.
	var opts []option.RequestOption
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if key != "" || !p.openAI() {
		opts = append(opts, option.WithAPIKey(key))
	}
	// The SDK would also send OPENAI_ADMIN_KEY as the bearer token of a
	// request without an API key (a local server reached without one):
	// requests here never need it, so no server ever receives it.
	opts = append(opts, option.WithAdminAPIKey(""))
	if !p.openAI() {
		// Another server must not receive OpenAI's organisation, project
		// or custom headers from the environment either.
		for _, h := range ambientHeaders() {
			opts = append(opts, option.WithHeaderDel(h))
		}
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	retries := model.DefaultMaxRetries
	if cfg.MaxRetries != nil {
		retries = *cfg.MaxRetries
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
	}, nil
}

// ambientHeaders are the headers the SDK adds from OpenAI's environment
// variables (OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS).
func ambientHeaders() []string {
	hs := []string{"OpenAI-Organization", "OpenAI-Project"}
	for _, line := range strings.Split(os.Getenv("OPENAI_CUSTOM_HEADERS"), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) != "" {
			hs = append(hs, strings.TrimSpace(name))
		}
	}
	return hs
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
