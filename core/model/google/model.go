package google

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// Model is a [model.Model] over Gemini's generateContent API (the Gemini
// API or Vertex AI). Build it with [New] or [NewFromConfig]; it is
// immutable and safe for concurrent use.
type Model struct {
	hc        *http.Client
	ep        endpoint
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
// sends its requests where and as client is configured (backend, key or
// credentials, base URL, API version, headers, HTTP client); o.Config
// must be zero. Requests go through the model's HTTPPolicy, as the
// transport of a copy of the client's HTTP client (client is unchanged),
// and are retried as the client's HTTPOptions.RetryOptions say (its number
// of attempts, under the policy's rules), not at all without them. An
// empty name, an invalid setting or a model name the API cannot take is an
// error.
func New(client *genai.Client, name string, o Options) (*Model, error) {
	if err := o.check(name, false); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, fmt.Errorf("google: New needs a client")
	}
	cc := client.ClientConfig()
	retries := 0
	if ro := cc.HTTPOptions.RetryOptions; ro != nil {
		retries = 4 // the SDK's default of 5 attempts
		if ro.Attempts != nil {
			retries = int(*ro.Attempts) - 1
		}
	}
	policy := model.NewHTTPPolicy(o.HTTPBounds, retries)
	ep, err := newEndpoint(cc, name)
	if err != nil {
		return nil, err
	}
	headers := map[string]string{}
	for k, v := range cc.HTTPOptions.Headers {
		if len(v) > 0 {
			headers[k] = v[0]
		}
	}
	if o.ProviderName == "" && cc.Backend == genai.BackendVertexAI {
		o.ProviderName = VertexProviderName
	}
	m := newModel(name, o, policy, append([]string{cc.APIKey}, model.CredentialHeaderValues(headers)...)...)
	m.hc, m.ep = withPolicy(cc.HTTPClient, policy), ep
	if t := cc.HTTPOptions.Timeout; t != nil && *t > 0 {
		m.timeout = *t
	}
	return m, nil
}

// newModel builds the Model of checked options, without its endpoint;
// secrets are what its errors mask besides o.Secrets.
func newModel(name string, o Options, policy *model.HTTPPolicy, secrets ...string) *Model {
	m := &Model{
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

// maxErrorBody bounds what is read of an error response.
const maxErrorBody = 1 << 20

// send makes one request, streamed when streamed is set, reporting deltas
// (which may be nil) while it streams.
func (m *Model) send(ctx context.Context, messages []model.Message, params model.Params, streamed bool, deltas model.DeltaHandler) (model.Message, error) {
	if m.initErr != nil {
		return model.Message{}, m.initErr
	}
	req, err := m.buildRequest(messages, params)
	if err != nil {
		return model.Message{}, err
	}
	s := params.Settings
	body, err := encode(req, m.ep.extraBody, s.ExtraBody)
	if err != nil {
		return model.Message{}, fmt.Errorf("%w: google: encoding the request: %w", model.ErrModel, err)
	}
	timeout := m.timeout
	if t := time.Duration(s.TimeoutMS) * time.Millisecond; t > 0 && (timeout == 0 || t < timeout) {
		timeout = t
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	u := m.ep.url + ":generateContent"
	if streamed {
		u = m.ep.url + ":streamGenerateContent?alt=sse"
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return model.Message{}, fmt.Errorf("%w: google: %w", model.ErrModel, err)
	}
	hreq.Header = m.ep.header.Clone()
	for k, v := range s.ExtraHeaders {
		hreq.Header.Set(k, v)
	}
	res, err := m.hc.Do(hreq)
	if err != nil {
		return model.Message{}, m.requestError(ctx, err, false)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		raw, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		if err != nil && ctx.Err() != nil {
			return model.Message{}, m.requestError(ctx, err, false)
		}
		return model.Message{}, m.statusError(res, raw)
	}
	a := assembler{deltas: deltas}
	if streamed {
		if err := m.readStream(res.Body, &a); err != nil {
			return model.Message{}, m.requestError(ctx, err, true)
		}
		return m.message(&a)
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return model.Message{}, m.requestError(ctx, err, false)
	}
	var resp genai.GenerateContentResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return model.Message{}, fmt.Errorf("%w: google: malformed response: %w", model.ErrModel, err)
	}
	if err := a.add(&resp); err != nil {
		return model.Message{}, err
	}
	return m.message(&a)
}
