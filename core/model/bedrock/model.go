package bedrock

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/starweaver-go/starweaver/core/model"
)

// Model is a [model.Model] and [model.Streamer] over Amazon Bedrock's
// Converse and ConverseStream APIs. Build it with [New] or
// [NewFromConfig]; it is immutable and safe for concurrent use.
type Model struct {
	client    *bedrockruntime.Client
	name      string
	provider  string
	streaming bool
	maxTokens int
	timeout   time.Duration
	headers   map[string]string
	// policy bounds and retries every request; redactor masks the
	// configured secrets in every error (the credentials a request was
	// signed with are added per request).
	policy   *model.HTTPPolicy
	redactor *model.Redactor
	creds    aws.CredentialsProvider
	// initErr fails every request (a missing region).
	initErr error
}

var _ model.Streamer = (*Model)(nil)

// New returns a Model for the Bedrock model id name that sends its
// requests through client; the caller owns the client's region,
// credentials, endpoint and HTTP client, so o.Config must be zero. The
// model's HTTPPolicy wraps the client's HTTP client for each request and
// bounds it; it retries nothing, since the client's own retryer does. An
// empty name or an invalid setting is an error.
func New(client *bedrockruntime.Client, name string, o Options) (*Model, error) {
	if err := o.check(name, false); err != nil {
		return nil, err
	}
	return newModel(client, name, o, 0), nil
}

func newModel(client *bedrockruntime.Client, name string, o Options, retries int, secrets ...string) *Model {
	m := &Model{
		client:    client,
		name:      name,
		provider:  o.ProviderName,
		streaming: o.Streaming,
		maxTokens: o.MaxTokens,
		policy:    model.NewHTTPPolicy(o.HTTPBounds, retries),
		redactor:  model.NewRedactor(append(secrets, o.Secrets...)...),
	}
	if m.provider == "" {
		m.provider = ProviderName
	}
	return m
}

// Name returns the model id sent with each request.
func (m *Model) Name() string { return m.name }

// Streaming reports whether Request streams (Options.Streaming).
func (m *Model) Streaming() bool { return m.streaming }

// Request sends messages (the model-visible history, the last message
// being the new request) through Converse, or ConverseStream with
// Options.Streaming, and returns the response. It does not modify
// messages. See the package documentation for the mapping and failures.
func (m *Model) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	return m.send(ctx, messages, params, m.streaming, nil)
}

// Stream is Request over ConverseStream whatever Options.Streaming says,
// reporting text, thinking and tool-call deltas as the events arrive; a
// tool call is reported done at the contentBlockStop of its toolUse
// block, before the response ends. With a nil deltas it is Request.
func (m *Model) Stream(ctx context.Context, messages []model.Message, params model.Params, deltas model.DeltaHandler) (model.Message, error) {
	if deltas == nil {
		return m.Request(ctx, messages, params)
	}
	return m.send(ctx, messages, params, true, deltas)
}

// send makes one request, streamed when streamed is set, and redacts its
// error.
func (m *Model) send(ctx context.Context, messages []model.Message, params model.Params, streamed bool, deltas model.DeltaHandler) (model.Message, error) {
	if m.initErr != nil {
		return model.Message{}, m.initErr
	}
	in, err := m.buildRequest(messages, params)
	if err != nil {
		return model.Message{}, m.redactor.Error(err)
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
	rec := &credsRecorder{}
	opt := m.operationOptions(rec, params.Settings.ExtraHeaders)
	var msg model.Message
	if streamed {
		msg, err = m.stream(ctx, in, opt, deltas)
	} else {
		msg, err = m.converse(ctx, in, opt)
	}
	if err != nil {
		r := m.redactor.With(rec.got.SecretAccessKey, rec.got.SessionToken)
		r = r.With(model.CredentialHeaderValues(params.Settings.ExtraHeaders)...)
		return model.Message{}, r.Error(m.requestError(ctx, err, streamed))
	}
	return msg, nil
}
