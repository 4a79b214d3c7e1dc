package google

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// Model is a [model.Model] over Gemini's generateContent API (the Gemini
// API or Vertex AI). Build it with [New] or [NewFromConfig]; it is
// immutable and safe for concurrent use.
type Model struct {
	client    *genai.Client
	name      string
	provider  string
	streaming bool
	thinking  *genai.ThinkingConfig
	timeout   time.Duration
	// policy bounds and retries every request; redactor masks the
	// credentials in every error.
	policy   *model.HTTPPolicy
	redactor *model.Redactor
	// initErr fails every request (a missing API key, no credentials).
	initErr error
}

var _ model.Streamer = (*Model)(nil)

// New returns a Model named name (for example "gemini-2.5-flash") that
// sends its requests as client is configured (backend, key or
// credentials, base URL, HTTP client); o.Config must be zero. The model
// keeps a copy of client whose HTTP client's transport goes through the
// model's HTTPPolicy (bounds only: a caller's client retries on its own,
// if its HTTPOptions.RetryOptions say so), so client itself is unchanged.
// An empty name, an invalid setting or a client that cannot be copied is
// an error.
func New(client *genai.Client, name string, o Options) (*Model, error) {
	if err := o.check(name, false); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, fmt.Errorf("google: New needs a client")
	}
	policy := model.NewHTTPPolicy(o.HTTPBounds, 0)
	cc := client.ClientConfig()
	base := cc.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	hc.Transport = &policyTransport{policy: policy, base: base.Transport}
	cc.HTTPClient = &hc
	c, err := genai.NewClient(context.Background(), &cc)
	if err != nil {
		return nil, model.NewRedactor(cc.APIKey).Error(fmt.Errorf("google: copying the client: %w", err))
	}
	var headers map[string]string
	for k, v := range cc.HTTPOptions.Headers {
		if len(v) > 0 {
			if headers == nil {
				headers = map[string]string{}
			}
			headers[k] = v[0]
		}
	}
	return newModel(c, name, o, policy, append([]string{cc.APIKey}, model.CredentialHeaderValues(headers)...)...), nil
}

// newModel builds the Model of checked options; secrets are what its
// errors mask besides o.Secrets.
func newModel(client *genai.Client, name string, o Options, policy *model.HTTPPolicy, secrets ...string) *Model {
	m := &Model{
		client:    client,
		name:      name,
		provider:  o.ProviderName,
		streaming: o.Streaming,
		policy:    policy,
		redactor:  model.NewRedactor(append(secrets, o.Secrets...)...),
	}
	if m.provider == "" {
		m.provider = ProviderName
	}
	switch {
	case o.NoThinking:
		m.thinking = &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](0)}
	case o.ThinkingBudget != 0 || o.IncludeThoughts:
		m.thinking = &genai.ThinkingConfig{IncludeThoughts: o.IncludeThoughts}
		if o.ThinkingBudget != 0 {
			m.thinking.ThinkingBudget = genai.Ptr(int32(o.ThinkingBudget))
		}
	}
	return m
}

// Name returns the model name sent with each request.
func (m *Model) Name() string { return m.name }

// Streaming reports whether the model was configured to stream
// (Options.Streaming); see model.StreamsByDefault.
func (m *Model) Streaming() bool { return m.streaming }

// Request sends messages (the model-visible history, the last message being
// the new request) and returns the response. It does not modify messages.
// See the package documentation for the mapping and the failures.
func (m *Model) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	msg, err := m.send(ctx, messages, params, m.streaming, nil)
	return msg, m.redact(err, params.Settings)
}

// Stream is Request over a streamed response, whatever Options.Streaming
// says, reporting text, thinking and tool-call deltas to deltas as the
// chunks arrive. Gemini sends each function call whole in one chunk, so a
// call is reported by its start, one arguments fragment and its done at
// once, before the response ends. With a nil deltas, Stream behaves as
// Request.
func (m *Model) Stream(ctx context.Context, messages []model.Message, params model.Params, deltas model.DeltaHandler) (model.Message, error) {
	if deltas == nil {
		return m.Request(ctx, messages, params)
	}
	msg, err := m.send(ctx, messages, params, true, deltas)
	return msg, m.redact(err, params.Settings)
}

// redact masks the credentials of the model and of the request's extra
// headers in err; every error a model returns passes here.
func (m *Model) redact(err error, s model.Settings) error {
	if err == nil {
		return nil
	}
	r := m.redactor
	if len(s.ExtraHeaders) > 0 {
		r = r.With(model.CredentialHeaderValues(s.ExtraHeaders)...)
	}
	return r.Error(err)
}

// send makes one request, streamed when streamed is set, reporting deltas
// (which may be nil) while it streams.
func (m *Model) send(ctx context.Context, messages []model.Message, params model.Params, streamed bool, deltas model.DeltaHandler) (model.Message, error) {
	if m.initErr != nil {
		return model.Message{}, m.initErr
	}
	contents, cfg, err := m.buildRequest(messages, params)
	if err != nil {
		return model.Message{}, err
	}
	timeout := m.timeout
	if t := time.Duration(params.Settings.TimeoutMS) * time.Millisecond; t > 0 && (timeout == 0 || t < timeout) {
		timeout = t
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ctx, n := withNote(ctx)
	if streamed {
		msg, err := m.stream(ctx, contents, cfg, deltas)
		if err != nil {
			return model.Message{}, m.requestError(ctx, err, true, n)
		}
		return msg, nil
	}
	resp, err := m.client.Models.GenerateContent(ctx, m.name, contents, cfg)
	if err != nil {
		return model.Message{}, m.requestError(ctx, err, false, n)
	}
	var a assembler
	if err := a.add(resp); err != nil {
		return model.Message{}, err
	}
	return m.message(&a)
}
