package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Chat is a model served by the Chat Completions API (POST /chat/completions),
// which OpenAI and every OpenAI-compatible server implement.
type Chat struct {
	client sdk.Client
	name   string
	o      resolved
}

var _ model.Streamer = (*Chat)(nil)

// New returns a Chat Completions model named name over client; the caller
// owns the client's authentication, base URL, retries and HTTP client, so
// o.Config must be zero. An empty name is an error.
func New(client sdk.Client, name string, o Options) (*Chat, error) {
	r, err := forClient(name, o)
	if err != nil {
		return nil, err
	}
	return &Chat{client: client, name: name, o: r}, nil
}

// NewChatFromConfig returns a Chat Completions model whose client o.Config
// describes (see Config for the environment fallbacks). An empty name or
// an invalid setting is an error; a missing key is reported by every
// request, not here.
func NewChatFromConfig(name string, o Options) (*Chat, error) {
	client, r, err := forConfig(name, o)
	if err != nil {
		return nil, err
	}
	return &Chat{client: client, name: name, o: r}, nil
}

// Request sends the conversation and returns the model's response. A failure
// is a *model.ProviderError (the provider's status, code and message) or an
// error wrapping model.ErrModel; both satisfy errors.Is(err, model.ErrModel).
func (m *Chat) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	msg, err := m.send(ctx, messages, params, m.o.streaming, nil)
	return msg, m.o.redact(err, params.Settings)
}

// Streaming reports whether the model was configured to stream
// (Options.Streaming): Stream always streams; an agent run that asks for no
// deltas starts calls while a response streams (eager dispatch) only from a
// model that streams anyway, one that asks for deltas from every model.
func (m *Chat) Streaming() bool { return m.o.streaming }

// Stream is Request over a streamed completion, whatever Options.Streaming
// says, reporting content and reasoning fragments, tool-call starts and
// argument fragments to deltas as the chunks arrive. A call is reported
// done once the next call starts and its arguments are a complete JSON
// object (servers may interleave calls' arguments), or else when the
// choice finishes, before the usage chunk. The returned message and the
// failures are Request's; the SDK retries only before the first chunk.
// With a nil deltas, Stream behaves as Request.
func (m *Chat) Stream(ctx context.Context, messages []model.Message, params model.Params, deltas model.DeltaHandler) (model.Message, error) {
	if deltas == nil {
		return m.Request(ctx, messages, params)
	}
	msg, err := m.send(ctx, messages, params, true, deltas)
	return msg, m.o.redact(err, params.Settings)
}

// send makes one request, streamed when streamed is set, reporting deltas
// (which may be nil) while it streams.
func (m *Chat) send(ctx context.Context, messages []model.Message, params model.Params, streamed bool, deltas model.DeltaHandler) (model.Message, error) {
	ctx, cancel, ropts, err := m.o.begin(ctx, params.Settings)
	if err != nil {
		return model.Message{}, err
	}
	defer cancel()
	body, tools, err := m.body(messages, params)
	if err != nil {
		return model.Message{}, err
	}
	if streamed {
		body.Stream = true
		if !m.o.profile.NoStreamUsage {
			body.StreamOptions = &streamOptions{IncludeUsage: true}
		}
	}
	raw, err := encodeBody(body, tools)
	if err != nil {
		return model.Message{}, fmt.Errorf("%w: encoding the request: %w", model.ErrModel, err)
	}
	rd := newReader(m.o, params)
	if streamed {
		var res *http.Response
		err := m.client.Post(ctx, "chat/completions", raw, &res, ropts...)
		return m.stream(newEvents(ssestream.NewDecoder(res), err, decodeChat), rd, deltas)
	}
	var res []byte
	if err := m.client.Post(ctx, "chat/completions", raw, &res, ropts...); err != nil {
		return model.Message{}, m.o.providerError(err)
	}
	var c chatCompletion
	if err := decodeChat(res, &c); err != nil {
		return model.Message{}, fmt.Errorf("%w: %s returned a malformed response: %w", model.ErrModel, m.o.provider, err)
	}
	return m.response(&c, rd)
}

// body maps the history and parameters to a Chat Completions request.
func (m *Chat) body(messages []model.Message, p model.Params) (body *chatRequest, tools []json.RawMessage, err error) {
	body = &chatRequest{Model: m.name}
	msgs, err := chatMessages(messages)
	if err != nil {
		return nil, nil, err
	}
	body.Messages = msgs
	if len(p.Tools) > 0 {
		tools = make([]json.RawMessage, len(p.Tools))
		for i, d := range p.Tools {
			if tools[i], err = chatToolJSON(m.o.profile.tool(d)); err != nil {
				return nil, nil, fmt.Errorf("%w: tool %q: %w", model.ErrModel, d.Name, err)
			}
		}
	}
	s := p.Settings
	body.Temperature, body.TopP, body.MaxCompletionTokens, body.Seed = s.Temperature, s.TopP, s.MaxTokens, s.Seed
	if len(s.Stop) > 0 {
		body.Stop = s.Stop
	}
	// OpenAI rejects the tool settings of a request without tools.
	if len(p.Tools) > 0 {
		if !m.o.profile.NoParallelToolCalls {
			body.ParallelToolCalls = s.ParallelToolCalls
		}
		switch s.ToolChoice {
		case "":
		case "auto", "none", "required":
			body.ToolChoice = s.ToolChoice
		default:
			c := namedChoice{Type: "function"}
			c.Function.Name = s.ToolChoice
			body.ToolChoice = c
		}
	}
	if o := p.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
			// The output tool is among p.Tools.
		case model.OutputNative:
			schema, strict, err := m.o.profile.outputSchema(o.Schema)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: output schema: %w", model.ErrModel, err)
			}
			body.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{
				Name: outputName(o.Name), Description: o.Description, Schema: schema, Strict: strict,
			}}
		default:
			return nil, nil, fmt.Errorf("%w: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	return body, tools, nil
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

// function is a tool's definition as both APIs describe a function.
func function(d tool.Definition) functionSpec {
	f := functionSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters}
	if d.IsStrict() {
		strict := true
		f.Strict, f.Parameters = &strict, strictSchema(d.Parameters)
	} else if f.Parameters == nil {
		f.Parameters = tool.EmptySchema()
	}
	return f
}

// chatMessages maps the history to Chat Completions messages. Every part
// kind is handled explicitly; an unknown one fails the request.
func chatMessages(messages []model.Message) ([]chatMessage, error) {
	out := make([]chatMessage, 0, len(messages)+2)
	for _, msg := range messages {
		switch msg.Kind {
		case model.KindRequest:
			for _, p := range msg.Parts {
				switch p.Kind {
				case model.KindSystemPrompt, model.KindInstruction:
					out = append(out, chatMessage{Role: "system", Content: p.Text})
				case model.KindUserPrompt:
					texts, err := userTexts(p)
					if err != nil {
						return nil, err
					}
					if len(texts) == 1 {
						out = append(out, chatMessage{Role: "user", Content: texts[0]})
						continue
					}
					parts := make([]textPart, len(texts))
					for i, t := range texts {
						parts[i] = textPart{Type: "text", Text: t}
					}
					out = append(out, chatMessage{Role: "user", Content: parts})
				case model.KindToolReturn:
					content, err := chatToolContent(p.Return)
					if err != nil {
						return nil, err
					}
					out = append(out, chatMessage{Role: "tool", Content: content, ToolCallID: p.Return.ToolCallID})
				case model.KindRetryPrompt:
					if p.ToolCallID != "" {
						out = append(out, chatMessage{Role: "tool", Content: p.Text, ToolCallID: p.ToolCallID})
					} else {
						out = append(out, chatMessage{Role: "user", Content: p.Text})
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
				out = append(out, a)
			}
		default:
			return nil, fmt.Errorf("%w: unknown message kind %q", model.ErrModel, msg.Kind)
		}
	}
	if instr := lastInstructions(messages); instr != "" {
		// After the leading system prompts, before the conversation.
		i := 0
		for i < len(out) && out[i].Role == "system" {
			i++
		}
		out = append(out, chatMessage{})
		copy(out[i+1:], out[i:])
		out[i] = chatMessage{Role: "system", Content: instr}
	}
	return out, nil
}

// chatAssistant maps an earlier response. Thinking parts are not sent: the
// Chat Completions API has no field for them (servers that send a
// reasoning_content do not take it back). A response left with nothing to
// send is skipped (ok false).
func chatAssistant(msg model.Message) (chatMessage, bool, error) {
	a := chatMessage{Role: "assistant"}
	var text, refusal strings.Builder
	for _, p := range msg.Parts {
		switch p.Kind {
		case model.KindText:
			text.WriteString(p.Text)
		case model.KindRefusal:
			refusal.WriteString(p.Text)
		case model.KindToolCall:
			if p.ToolCall == nil {
				return a, false, fmt.Errorf("%w: tool_call part without a call", model.ErrModel)
			}
			a.ToolCalls = append(a.ToolCalls, chatToolCall{ID: p.ToolCall.ID, Type: "function",
				Function: chatFunction{Name: p.ToolCall.Name, Arguments: argumentsText(p.ToolCall.Arguments)}})
		case model.KindThinking:
		case model.KindSystemPrompt, model.KindInstruction, model.KindUserPrompt, model.KindToolReturn, model.KindRetryPrompt:
			return a, false, fmt.Errorf("%w: %s part in a response message", model.ErrModel, p.Kind)
		default:
			return a, false, fmt.Errorf("%w: unknown part kind %q", model.ErrModel, p.Kind)
		}
	}
	if text.Len() > 0 {
		a.Content = text.String()
	}
	a.Refusal = refusal.String()
	return a, text.Len() > 0 || refusal.Len() > 0 || len(a.ToolCalls) > 0, nil
}

// reader holds what mapping a response needs from the request.
type reader struct {
	o *resolved
	// strict holds the original schemas of the strict tools, native the
	// one of a native output: strict mode forced nulls into their
	// optional properties, which are removed again.
	strict map[string]map[string]any
	native map[string]any
}

func newReader(o resolved, p model.Params) reader {
	r := reader{o: &o}
	if o.profile.NoStrict {
		// Nothing was converted, so there are no added nulls to drop.
		return r
	}
	r.strict = strictTools(p.Tools)
	if p.Output != nil && p.Output.Mode == model.OutputNative {
		r.native = p.Output.Schema
	}
	return r
}

// response maps a completion to a response message.
func (m *Chat) response(c *chatCompletion, rd reader) (model.Message, error) {
	if len(c.Choices) == 0 {
		return model.Message{}, m.o.errEmpty()
	}
	ch := c.Choices[0]
	msg := ch.Message
	var parts []model.Part
	if r := msg.Reasoning; r != "" {
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
		parts = append(parts, toolCallPart(tc.ID, tc.Name, tc.Arguments, rd.strict))
	}
	return m.finish(parts, c.ID, c.Model, ch.FinishReason, msg.Refusal != "", usageOf(c.Usage), rd)
}

// finish assembles the response message shared by the streamed and the
// plain paths.
func (m *Chat) finish(parts []model.Part, id, name, reason string, refused bool, u *model.Usage, rd reader) (model.Message, error) {
	if len(parts) == 0 {
		return model.Message{}, m.o.errEmpty()
	}
	if rd.native != nil {
		for i := range parts {
			if parts[i].Kind == model.KindText {
				parts[i].Text = string(dropAddedNulls(rd.native, []byte(parts[i].Text)))
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

func usageOf(u *chatUsage) *model.Usage {
	out := &model.Usage{Requests: 1}
	if u != nil {
		out.InputTokens, out.OutputTokens = u.PromptTokens, u.CompletionTokens
		out.CacheReadTokens, out.CacheWriteTokens, out.ReasoningTokens = u.CachedTokens, u.CacheWriteTokens, u.ReasoningTokens
	}
	return out
}

// stream assembles the chunks of a streamed completion into the message a
// plain request would return: text and reasoning deltas are concatenated,
// tool calls gathered by index (their arguments arrive in pieces, several
// calls interleaved), the usage read from the last chunk. It reports the
// chunks' deltas to deltas when it is not nil.
func (m *Chat) stream(s *events[chatCompletion], rd reader, deltas model.DeltaHandler) (model.Message, error) {
	defer s.Close()
	type call struct {
		id, name string
		args     strings.Builder
		index    int
		done     bool
	}
	var (
		id, name, reason        string
		text, refusal, thinking strings.Builder
		calls                   []*call
		byIndex                 = map[int]*call{}
		usage                   = &model.Usage{Requests: 1}
	)
	// finishCalls reports done every call not yet done before calls[n]
	// whose arguments are complete (all of them when all is set).
	finishCalls := func(n int, all bool) {
		for i, c := range calls[:n] {
			if c.done {
				continue
			}
			a := strings.TrimSpace(c.args.String())
			if !all && (a == "" || a[0] != '{' || !json.Valid([]byte(a))) {
				continue
			}
			c.done = true
			p := toolCallPart(c.id, c.name, c.args.String(), rd.strict)
			deltas(model.Delta{Kind: model.DeltaToolCallDone, Index: i, Call: p.ToolCall})
		}
	}
	for s.Next() {
		ch := s.Current()
		if ch.ID != "" {
			id = ch.ID
		}
		if ch.Model != "" {
			name = ch.Model
		}
		if ch.Usage != nil {
			usage = usageOf(ch.Usage)
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			d := &c.Message
			text.WriteString(d.Content)
			refusal.WriteString(d.Refusal)
			thinking.WriteString(d.Reasoning)
			if deltas != nil {
				if d.Reasoning != "" {
					deltas(model.Delta{Kind: model.DeltaThinking, Text: d.Reasoning})
				}
				if d.Content != "" {
					deltas(model.Delta{Kind: model.DeltaText, Text: d.Content})
				}
			}
			for _, tc := range d.ToolCalls {
				cl := byIndex[tc.Index]
				first := cl == nil
				if first {
					cl = &call{index: len(calls)}
					byIndex[tc.Index] = cl
					calls = append(calls, cl)
				}
				if tc.ID != "" {
					cl.id = tc.ID
				}
				cl.name += tc.Name
				cl.args.WriteString(tc.Arguments)
				if deltas == nil {
					continue
				}
				if first {
					// A call starts: the earlier ones whose arguments are
					// a whole object are done (a valid object cannot grow
					// into another valid one, so no later fragment of a
					// well-formed stream changes them).
					finishCalls(cl.index, false)
					deltas(model.Delta{Kind: model.DeltaToolCallStart, Index: cl.index, Call: &model.ToolCall{ID: cl.id, Name: cl.name}})
				}
				if tc.Arguments != "" {
					deltas(model.Delta{Kind: model.DeltaToolCallArguments, Index: cl.index, Text: tc.Arguments})
				}
			}
			if c.FinishReason != "" {
				reason = c.FinishReason
				if deltas != nil {
					finishCalls(len(calls), true)
				}
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
		parts = append(parts, toolCallPart(c.id, c.name, c.args.String(), rd.strict))
	}
	return m.finish(parts, id, name, reason, refusal.Len() > 0, usage, rd)
}

// Name returns the model's name, as requests send it.
func (m *Chat) Name() string { return m.name }
