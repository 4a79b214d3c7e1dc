package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Chat is a model served by the Chat Completions API (POST /chat/completions),
// which OpenAI and every OpenAI-compatible server implement.
type Chat struct {
	client sdk.Client
	name   string
	o      options
}

var _ model.Model = (*Chat)(nil)

// New returns a Chat Completions model named name over client; the caller
// owns the client's authentication, base URL, retries and HTTP client.
func New(client sdk.Client, name string, opts ...Option) *Chat {
	return &Chat{client: client, name: name, o: buildOptions(opts)}
}

// NewChatFromConfig returns a Chat Completions model whose client cfg
// describes (see Config for the environment fallbacks). A missing key is
// reported by every request, not here.
func NewChatFromConfig(name string, cfg Config, opts ...Option) *Chat {
	client, noKey := clientFromConfig(cfg)
	m := New(client, name, opts...)
	m.o.noKey, m.o.timeout = noKey, cfg.Timeout
	return m
}

// Name returns the model name sent with each request.
func (m *Chat) Name() string { return m.name }

// Request sends the conversation and returns the model's response. A failure
// is a *model.ProviderError (the provider's status, code and message) or an
// error wrapping model.ErrModel; both satisfy errors.Is(err, model.ErrModel).
func (m *Chat) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	ctx, cancel, ropts, err := m.o.begin(ctx, params.Settings)
	if err != nil {
		return model.Message{}, err
	}
	defer cancel()
	body, err := m.body(messages, params)
	if err != nil {
		return model.Message{}, err
	}
	strict := strictTools(params.Tools)
	var native map[string]any
	if params.Output != nil && params.Output.Mode == model.OutputNative {
		native = params.Output.Schema
	}
	if m.o.streaming {
		return m.stream(ctx, body, ropts, strict, native)
	}
	c, err := m.client.Chat.Completions.New(ctx, body, ropts...)
	if err != nil {
		return model.Message{}, m.o.providerError(err)
	}
	return m.response(c, strict, native)
}

// body maps the history and parameters to a Chat Completions request.
func (m *Chat) body(messages []model.Message, p model.Params) (sdk.ChatCompletionNewParams, error) {
	body := sdk.ChatCompletionNewParams{Model: shared.ChatModel(m.name)}
	msgs, err := chatMessages(messages)
	if err != nil {
		return body, err
	}
	body.Messages = msgs
	for _, d := range p.Tools {
		body.Tools = append(body.Tools, chatTool(d))
	}
	s := p.Settings
	if s.Temperature != nil {
		body.Temperature = sdk.Float(*s.Temperature)
	}
	if s.TopP != nil {
		body.TopP = sdk.Float(*s.TopP)
	}
	if s.MaxTokens != nil {
		body.MaxCompletionTokens = sdk.Int(int64(*s.MaxTokens))
	}
	if len(s.Stop) > 0 {
		body.Stop.OfStringArray = s.Stop
	}
	if s.Seed != nil {
		body.Seed = sdk.Int(*s.Seed)
	}
	// OpenAI rejects the tool settings of a request without tools.
	if len(p.Tools) > 0 {
		if s.ParallelToolCalls != nil {
			body.ParallelToolCalls = sdk.Bool(*s.ParallelToolCalls)
		}
		switch s.ToolChoice {
		case "":
		case "auto", "none", "required":
			body.ToolChoice.OfAuto = sdk.String(s.ToolChoice)
		default:
			body.ToolChoice.OfFunctionToolChoice = &sdk.ChatCompletionNamedToolChoiceParam{
				Function: sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: s.ToolChoice},
			}
		}
	}
	if o := p.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
			// The output tool is among p.Tools.
		case model.OutputNative:
			js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: outputName(o.Name), Strict: sdk.Bool(true), Schema: strictSchema(o.Schema)}
			if o.Description != "" {
				js.Description = sdk.String(o.Description)
			}
			body.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
		default:
			return body, fmt.Errorf("%w: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	return body, nil
}

// outputName is a response format name OpenAI accepts (^[a-zA-Z0-9_-]{1,64}$).
func outputName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "output"
	}
	return string(b)
}

func chatTool(d tool.Definition) sdk.ChatCompletionToolUnionParam {
	fd := shared.FunctionDefinitionParam{Name: d.Name}
	if d.Description != "" {
		fd.Description = sdk.String(d.Description)
	}
	if d.IsStrict() {
		fd.Strict = sdk.Bool(true)
		fd.Parameters = strictSchema(d.Parameters)
	} else if d.Parameters != nil {
		fd.Parameters = d.Parameters
	} else {
		fd.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return sdk.ChatCompletionFunctionTool(fd)
}

// chatMessages maps the history to Chat Completions messages. Every part
// kind is handled explicitly; an unknown one fails the request.
func chatMessages(messages []model.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(messages)+1)
	for _, msg := range messages {
		switch msg.Kind {
		case model.KindRequest:
			for _, p := range msg.Parts {
				switch p.Kind {
				case model.KindSystemPrompt, model.KindInstruction:
					out = append(out, sdk.SystemMessage(p.Text))
				case model.KindUserPrompt:
					texts, err := userTexts(p)
					if err != nil {
						return nil, err
					}
					if len(texts) == 1 {
						out = append(out, sdk.UserMessage(texts[0]))
					} else {
						parts := make([]sdk.ChatCompletionContentPartUnionParam, len(texts))
						for i, t := range texts {
							parts[i] = sdk.TextContentPart(t)
						}
						out = append(out, sdk.UserMessage(parts))
					}
				case model.KindToolReturn:
					text, err := returnText(p.Return)
					if err != nil {
						return nil, err
					}
					out = append(out, sdk.ToolMessage(text, p.Return.ToolCallID))
				case model.KindRetryPrompt:
					if p.ToolCallID != "" {
						out = append(out, sdk.ToolMessage(p.Text, p.ToolCallID))
					} else {
						out = append(out, sdk.UserMessage(p.Text))
					}
				case model.KindText, model.KindToolCall, model.KindThinking, model.KindRefusal:
					return nil, fmt.Errorf("%w: %s part in a request message", model.ErrModel, p.Kind)
				default:
					return nil, fmt.Errorf("%w: unknown part kind %q", model.ErrModel, p.Kind)
				}
			}
		case model.KindResponse:
			a, ok, err := chatAssistant(msg)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: a})
			}
		default:
			return nil, fmt.Errorf("%w: unknown message kind %q", model.ErrModel, msg.Kind)
		}
	}
	if instr := lastInstructions(messages); instr != "" {
		// After the leading system prompts, before the conversation.
		i := 0
		for i < len(out) && out[i].OfSystem != nil {
			i++
		}
		out = append(out[:i], append([]sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(instr)}, out[i:]...)...)
	}
	return out, nil
}

// chatAssistant maps an earlier response. Thinking parts are not sent: the
// Chat Completions API has no field for them (servers that send a
// reasoning_content do not take it back). A response left with nothing to
// send is skipped (ok false).
func chatAssistant(msg model.Message) (*sdk.ChatCompletionAssistantMessageParam, bool, error) {
	a := &sdk.ChatCompletionAssistantMessageParam{}
	var text, refusal strings.Builder
	for _, p := range msg.Parts {
		switch p.Kind {
		case model.KindText:
			text.WriteString(p.Text)
		case model.KindRefusal:
			refusal.WriteString(p.Text)
		case model.KindToolCall:
			if p.ToolCall == nil {
				return nil, false, fmt.Errorf("%w: tool_call part without a call", model.ErrModel)
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       p.ToolCall.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: p.ToolCall.Name, Arguments: argumentsText(p.ToolCall.Arguments)},
				},
			})
		case model.KindThinking:
		case model.KindSystemPrompt, model.KindInstruction, model.KindUserPrompt, model.KindToolReturn, model.KindRetryPrompt:
			return nil, false, fmt.Errorf("%w: %s part in a response message", model.ErrModel, p.Kind)
		default:
			return nil, false, fmt.Errorf("%w: unknown part kind %q", model.ErrModel, p.Kind)
		}
	}
	if text.Len() > 0 {
		a.Content.OfString = sdk.String(text.String())
	}
	if refusal.Len() > 0 {
		a.Refusal = sdk.String(refusal.String())
	}
	return a, text.Len() > 0 || refusal.Len() > 0 || len(a.ToolCalls) > 0, nil
}

// response maps a completion to a response message.
func (m *Chat) response(c *sdk.ChatCompletion, strict map[string]map[string]any, native map[string]any) (model.Message, error) {
	if len(c.Choices) == 0 {
		return model.Message{}, m.o.errEmpty()
	}
	ch := c.Choices[0]
	msg := ch.Message
	var parts []model.Part
	if r := reasoningField(msg.JSON.ExtraFields); r != "" {
		parts = append(parts, model.ThinkingPart(r, model.Thinking{Provider: m.o.provider}))
	}
	if msg.Content != "" {
		parts = append(parts, model.TextPart(msg.Content))
	}
	if msg.Refusal != "" {
		parts = append(parts, model.RefusalPart(msg.Refusal))
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			return model.Message{}, fmt.Errorf("%w: %s returned a tool call of unsupported type %q", model.ErrModel, m.o.provider, tc.Type)
		}
		parts = append(parts, toolCallPart(tc.ID, tc.Function.Name, tc.Function.Arguments, strict))
	}
	u := chatUsage(c.Usage)
	return m.finish(parts, c.ID, c.Model, ch.FinishReason, msg.Refusal != "", &u, native)
}

// finish assembles the response message shared by the streamed and the
// plain paths.
func (m *Chat) finish(parts []model.Part, id, name, reason string, refused bool, u *model.Usage, native map[string]any) (model.Message, error) {
	if len(parts) == 0 {
		return model.Message{}, m.o.errEmpty()
	}
	if native != nil {
		for i := range parts {
			if parts[i].Kind == model.KindText {
				parts[i].Text = string(dropAddedNulls(native, []byte(parts[i].Text)))
			}
		}
	}
	out := model.Response(parts...)
	out.ResponseID, out.ModelName, out.Provider, out.Usage = id, name, m.o.provider, u
	if out.ModelName == "" {
		out.ModelName = m.name
	}
	out.FinishReason = finishReason(reason)
	if refused && out.FinishReason == model.FinishStop {
		out.FinishReason = model.FinishContentFilter
	}
	return out, nil
}

// reasoningField reads the reasoning text OpenAI-compatible servers add to
// a message or a delta (vLLM, DeepSeek and llama.cpp send
// reasoning_content; Ollama and OpenRouter send reasoning). OpenAI itself
// sends none.
func reasoningField(extra map[string]respjsonField) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if f, ok := extra[k]; ok {
			raw := f.Raw()
			if raw == "" || raw == "null" {
				continue
			}
			var s string
			if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

func chatUsage(u sdk.CompletionUsage) model.Usage {
	return model.Usage{
		Requests:         1,
		InputTokens:      int(u.PromptTokens),
		OutputTokens:     int(u.CompletionTokens),
		CacheReadTokens:  int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.PromptTokensDetails.CacheWriteTokens),
		ReasoningTokens:  int(u.CompletionTokensDetails.ReasoningTokens),
	}
}

// stream sends the request with stream: true and assembles the chunks into
// the message a plain request would return.
func (m *Chat) stream(ctx context.Context, body sdk.ChatCompletionNewParams, ropts []option.RequestOption, strict map[string]map[string]any, native map[string]any) (model.Message, error) {
	body.StreamOptions.IncludeUsage = sdk.Bool(true)
	s := m.client.Chat.Completions.NewStreaming(ctx, body, ropts...)
	defer s.Close()
	type call struct {
		id, name string
		args     strings.Builder
	}
	var (
		id, name, reason        string
		text, refusal, thinking strings.Builder
		calls                   []*call
		byIndex                 = map[int64]*call{}
		usage                   = model.Usage{Requests: 1}
	)
	for s.Next() {
		ch := s.Current()
		if ch.ID != "" {
			id = ch.ID
		}
		if ch.Model != "" {
			name = ch.Model
		}
		if ch.Usage.PromptTokens != 0 || ch.Usage.CompletionTokens != 0 {
			usage = chatUsage(ch.Usage)
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			d := c.Delta
			text.WriteString(d.Content)
			refusal.WriteString(d.Refusal)
			thinking.WriteString(reasoningField(d.JSON.ExtraFields))
			for _, tc := range d.ToolCalls {
				cl := byIndex[tc.Index]
				if cl == nil {
					cl = &call{}
					byIndex[tc.Index] = cl
					calls = append(calls, cl)
				}
				if tc.ID != "" {
					cl.id = tc.ID
				}
				if tc.Function.Name != "" {
					cl.name += tc.Function.Name
				}
				cl.args.WriteString(tc.Function.Arguments)
			}
			if c.FinishReason != "" {
				reason = c.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		return model.Message{}, m.o.streamError(err)
	}
	if reason == "" {
		return model.Message{}, m.o.errIncompleteStream(nil)
	}
	var parts []model.Part
	if thinking.Len() > 0 {
		parts = append(parts, model.ThinkingPart(thinking.String(), model.Thinking{Provider: m.o.provider}))
	}
	if text.Len() > 0 {
		parts = append(parts, model.TextPart(text.String()))
	}
	if refusal.Len() > 0 {
		parts = append(parts, model.RefusalPart(refusal.String()))
	}
	for _, c := range calls {
		parts = append(parts, toolCallPart(c.id, c.name, c.args.String(), strict))
	}
	return m.finish(parts, id, name, reason, refusal.Len() > 0, &usage, native)
}

// streamError classifies the error that ended a stream: the provider's
// (an HTTP error before the first event, or an error event), the context's,
// or a dropped connection.
func (o *options) streamError(err error) error {
	var apiErr *sdk.Error
	var se *ssestream.StreamError
	if errors.As(err, &apiErr) || errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return o.providerError(err)
	}
	return o.errIncompleteStream(err)
}
