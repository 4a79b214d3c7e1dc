package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// Environment variables read by [NewFromConfig]: the key from
// GOOGLE_API_KEY, then GEMINI_API_KEY (the SDK's own order), and the base
// URL of the Gemini API from GOOGLE_GEMINI_BASE_URL. For Vertex AI the SDK
// reads GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION and
// GOOGLE_VERTEX_BASE_URL when the config leaves them empty.
const (
	EnvAPIKey       = "GOOGLE_API_KEY"
	EnvGeminiAPIKey = "GEMINI_API_KEY"
	EnvBaseURL      = "GOOGLE_GEMINI_BASE_URL"
)

// DefaultMaxRetries is how many times a failed request is retried when
// Config.MaxRetries is nil.
const DefaultMaxRetries = 2

// The API versions the models send to when Config.APIVersion is empty:
// the beta surfaces carry the newest fields (parametersJsonSchema,
// responseJsonSchema, multimodal function responses).
const (
	DefaultGeminiAPIVersion = "v1beta"
	DefaultVertexAPIVersion = "v1beta1"
)

// ErrMissingAPIKey is returned by every request of a Gemini API model
// built by [NewFromConfig] with no API key (neither Config.APIKey,
// GOOGLE_API_KEY nor GEMINI_API_KEY). errors.Is(err, model.ErrModel) holds
// too.
var ErrMissingAPIKey = errors.New("google: no API key: set the GOOGLE_API_KEY (or GEMINI_API_KEY) environment variable or pass an API key")

// Config describes how [NewFromConfig] reaches the Gemini API, or Vertex
// AI when Vertex is set. The zero Config reads the key and the base URL
// from the environment and talks to the Gemini API.
type Config struct {
	// APIKey falls back to GOOGLE_API_KEY, then GEMINI_API_KEY. On Vertex
	// AI a key selects express mode (no project or location).
	APIKey string
	// BaseURL falls back to GOOGLE_GEMINI_BASE_URL (Gemini API), then to
	// the SDK's default.
	BaseURL string
	// APIVersion is the path's version ("" means DefaultGeminiAPIVersion
	// or DefaultVertexAPIVersion).
	APIVersion string
	// Headers are added to every request.
	Headers map[string]string
	// MaxRetries bounds the retries of one request (408, 409, 429, 5xx
	// and failed connections, under model.HTTPPolicy's rules); nil means
	// DefaultMaxRetries, 0 disables them, negative is an error.
	MaxRetries *int
	// Timeout bounds one request, its retries included; 0 means no bound
	// beyond the context (and Settings.TimeoutMS); negative is an error.
	Timeout time.Duration
	// HTTPClient is the client whose transport sends the requests (the
	// policy wraps it); nil means a new one over http.DefaultTransport.
	HTTPClient *http.Client

	// Vertex selects the Vertex AI backend: Project and Location (else
	// GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION) name the endpoint,
	// and Credentials (else the application default credentials)
	// authorise it, unless APIKey selects express mode.
	Vertex      bool
	Project     string
	Location    string
	Credentials *auth.Credentials
}

func (c *Config) isZero() bool {
	return c.APIKey == "" && c.BaseURL == "" && c.APIVersion == "" && c.Headers == nil && c.MaxRetries == nil &&
		c.Timeout == 0 && c.HTTPClient == nil && !c.Vertex && c.Project == "" && c.Location == "" && c.Credentials == nil
}

// NewFromConfig builds a Model named name (for example
// "gemini-2.5-flash") over a client configured by o.Config. The environment
// is read now, once. An empty name or an invalid setting is an error; a
// missing key is not: every request returns ErrMissingAPIKey instead (and
// a Vertex AI model without credentials, the reason none were found).
func NewFromConfig(name string, o Options) (*Model, error) {
	if err := o.check(name, true); err != nil {
		return nil, err
	}
	cfg := o.Config
	retries := DefaultMaxRetries
	if cfg.MaxRetries != nil {
		retries = *cfg.MaxRetries
	}
	policy := model.NewHTTPPolicy(o.HTTPBounds, retries)
	cc := genai.ClientConfig{
		APIKey:  cfg.APIKey,
		Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    cfg.BaseURL,
			APIVersion: cfg.APIVersion,
			Headers:    http.Header{},
		},
	}
	for k, v := range cfg.Headers {
		cc.HTTPOptions.Headers.Set(k, v)
	}
	if cc.APIKey == "" {
		cc.APIKey = os.Getenv(EnvAPIKey)
	}
	if cc.APIKey == "" {
		cc.APIKey = os.Getenv(EnvGeminiAPIKey)
	}
	var initErr error
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	transport := base.Transport
	if cfg.Vertex {
		cc.Backend = genai.BackendVertexAI
		if cfg.APIKey == "" {
			// A project, not a key from the environment, selects the
			// endpoint when the config names one or the environment does.
			project, location := cfg.Project, cfg.Location
			if project == "" {
				project = os.Getenv("GOOGLE_CLOUD_PROJECT")
			}
			if location == "" {
				location = os.Getenv("GOOGLE_CLOUD_LOCATION")
			}
			if project != "" || cfg.BaseURL == "" {
				cc.APIKey = ""
				cc.Project, cc.Location = project, location
				if cc.Location == "" {
					cc.Location = "global"
				}
				var err error
				transport, err = vertexTransport(cfg.Credentials, transport)
				if err != nil {
					initErr = fmt.Errorf("%w: google: Vertex AI credentials: %w", model.ErrModel, err)
				}
			}
		}
		if cc.HTTPOptions.APIVersion == "" {
			cc.HTTPOptions.APIVersion = DefaultVertexAPIVersion
		}
	} else {
		if cc.HTTPOptions.BaseURL == "" {
			cc.HTTPOptions.BaseURL = os.Getenv(EnvBaseURL)
		}
		if cc.HTTPOptions.APIVersion == "" {
			cc.HTTPOptions.APIVersion = DefaultGeminiAPIVersion
		}
		if cc.APIKey == "" {
			initErr = fmt.Errorf("%w: %w", model.ErrModel, ErrMissingAPIKey)
		}
	}
	secrets := append([]string{cc.APIKey}, model.CredentialHeaderValues(cfg.Headers)...)
	hc := *base
	hc.Transport = &policyTransport{policy: policy, base: transport}
	if o.ProviderName == "" && cfg.Vertex {
		o.ProviderName = VertexProviderName
	}
	m := newModel(name, o, policy, secrets...)
	m.hc, m.timeout = &hc, cfg.Timeout
	m.initErr = initErr
	if initErr != nil {
		return m, nil
	}
	// The SDK resolves the config (defaults, environment, endpoints) as
	// for its own requests; the model sends with what it resolved.
	cc.HTTPClient = &hc
	client, err := genai.NewClient(context.Background(), &cc)
	if err != nil {
		m.initErr = model.NewRedactor(secrets...).Error(fmt.Errorf("%w: google: %w", model.ErrModel, err))
		return m, nil
	}
	if m.ep, err = newEndpoint(client.ClientConfig(), name); err != nil {
		return nil, err
	}
	return m, nil
}

// vertexTransport returns base (nil: the default transport) authorised by
// creds, or by the application default credentials when creds is nil.
func vertexTransport(creds *auth.Credentials, base http.RoundTripper) (http.RoundTripper, error) {
	if creds == nil {
		var err error
		creds, err = credentials.DetectDefault(&credentials.DetectOptions{
			Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"},
		})
		if err != nil {
			return nil, err
		}
	}
	c, err := httptransport.NewClient(&httptransport.Options{Credentials: creds, BaseRoundTripper: base})
	if err != nil {
		return nil, err
	}
	return c.Transport, nil
}
