package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
)

// messagesPath is the Messages API endpoint, relative to the base URL.
const messagesPath = "v1/messages"

// Model is a [model.Model] over Anthropic's Messages API. Build it with
// [New] or [NewFromConfig]; it is immutable and safe for concurrent use.
type Model struct {
	client         sdk.Client
	name           string
	provider       string
	streaming      bool
	maxTokens      int
	thinkingBudget int
	timeout        time.Duration
	schemas        *schemaCache
	// policy bounds and retries every request; redactor masks the
	// credentials in every error.
	policy   *model.HTTPPolicy
	redactor *model.Redactor
	// keyless: built from a Config without a key (a custom base URL); a
	// 401 then says that ANTHROPIC_API_KEY is unset.
	keyless bool
	// initErr fails every request (a missing API key).
	initErr error
}

var _ model.Streamer = (*Model)(nil)

// New returns a Model named name (for example "claude-sonnet-4-5") that
// sends its requests through client; the caller owns the client's auth,
// base URL, retries and HTTP client, so o.Config must be zero. An empty
// name or an invalid setting is an error.
func New(client sdk.Client, name string, o Options) (*Model, error) {
	if err := o.check(name, false); err != nil {
		return nil, err
	}
	// A caller's client retries on its own: the policy only bounds.
	return newModel(client, name, o, 0), nil
}

// newModel builds the Model of checked options; retries is what its policy
// retries and secrets what its errors mask besides o.Secrets.
func newModel(client sdk.Client, name string, o Options, retries int, secrets ...string) *Model {
	m := &Model{
		client:         client,
		name:           name,
		provider:       o.ProviderName,
		streaming:      o.Streaming,
		maxTokens:      o.MaxTokens,
		thinkingBudget: o.ThinkingBudget,
		schemas:        &schemaCache{},
		policy:         model.NewHTTPPolicy(o.HTTPBounds, retries),
		redactor:       model.NewRedactor(append(secrets, o.Secrets...)...),
	}
	if m.provider == "" {
		m.provider = ProviderName
	}
	if m.maxTokens == 0 {
		m.maxTokens = DefaultMaxTokens
	}
	return m
}

// Name returns the model name sent with each request.
func (m *Model) Name() string { return m.name }

// Request sends messages (the model-visible history, the last message being
// the new request) and returns the response. It does not modify messages.
// See the package documentation for the mapping and the failures.
func (m *Model) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	msg, err := m.send(ctx, messages, params, m.streaming, nil)
	return msg, m.redact(err, params.Settings)
}

// redact masks the credentials of the model and of the request's extra
// headers in err (see model.Redactor); every error a model returns passes
// here.
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

// Streaming reports whether the model was configured to stream
// (Options.Streaming): Stream always streams; an agent run that asks for no
// deltas starts calls while a response streams (eager dispatch) only from a
// model that streams anyway, one that asks for deltas from every model.
func (m *Model) Streaming() bool { return m.streaming }

// Stream is Request over a streamed response, whatever Options.Streaming
// says, reporting text, thinking and tool-call deltas to deltas as the
// events arrive; a tool call is reported done at the content_block_stop of
// its tool_use block, before the response ends. The returned message is
// the one Request returns for the same response. Failures are Request's:
// the SDK retries only before the stream's first byte, and a stream that
// breaks fails with Code "stream_error" after the deltas already reported.
// With a nil deltas, Stream behaves as Request.
func (m *Model) Stream(ctx context.Context, messages []model.Message, params model.Params, deltas model.DeltaHandler) (model.Message, error) {
	if deltas == nil {
		return m.Request(ctx, messages, params)
	}
	msg, err := m.send(ctx, messages, params, true, deltas)
	return msg, m.redact(err, params.Settings)
}

// send makes one request, streamed when streamed is set, reporting deltas
// (which may be nil) while it streams.
func (m *Model) send(ctx context.Context, messages []model.Message, params model.Params, streamed bool, deltas model.DeltaHandler) (model.Message, error) {
	if m.initErr != nil {
		return model.Message{}, m.initErr
	}
	body, ropts, err := m.buildRequest(messages, params)
	if err != nil {
		return model.Message{}, err
	}
	ropts = append(ropts, option.WithMiddleware(m.policy.Do))
	body.Stream = streamed
	raw, err := m.appendRequest(make([]byte, 0, 4096), body)
	if err != nil {
		return model.Message{}, fmt.Errorf("%w: anthropic: encoding the request: %w", model.ErrModel, err)
	}
	timeout := m.timeout
	if t := time.Duration(params.Settings.TimeoutMS) * time.Millisecond; t > 0 && (timeout == 0 || t < timeout) {
		timeout = t
	}
	if timeout > 0 {
		// Bounds each attempt for the SDK and the whole request here.
		ropts = append(ropts, option.WithRequestTimeout(timeout))
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var resp wireResponse
	if streamed {
		err = m.stream(ctx, raw, ropts, &resp, deltas)
	} else {
		var out []byte
		if err = m.client.Post(ctx, messagesPath, json.RawMessage(raw), &out, ropts...); err == nil {
			if err = decodeResponse(out, &resp); err != nil {
				return model.Message{}, fmt.Errorf("%w: anthropic: malformed response: %w", model.ErrModel, err)
			}
		}
	}
	if err != nil {
		return model.Message{}, m.requestError(ctx, err, streamed)
	}
	return m.parseResponse(&resp)
}
