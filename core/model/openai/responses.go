package openai

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Responses is a model served by OpenAI's Responses API (POST /responses).
// Unlike Chat Completions it returns the model's reasoning as items that
// can be sent back: they become thinking parts carrying the item id and its
// encrypted content (requested with include reasoning.encrypted_content),
// and are sent back to the provider that produced them only.
type Responses struct {
	client sdk.Client
	name   string
	o      options
}

var _ model.Model = (*Responses)(nil)

// NewResponses returns a Responses API model named name over client; the
// caller owns the client's authentication, base URL, retries and HTTP
// client.
func NewResponses(client sdk.Client, name string, opts ...Option) *Responses {
	return &Responses{client: client, name: name, o: buildOptions(opts)}
}

// NewResponsesFromConfig returns a Responses API model whose client cfg
// describes (see Config). A missing key is reported by every request.
func NewResponsesFromConfig(name string, cfg Config, opts ...Option) *Responses {
	client, noKey := clientFromConfig(cfg)
	m := NewResponses(client, name, opts...)
	m.o.noKey, m.o.timeout = noKey, cfg.Timeout
	return m
}

// Name returns the model name sent with each request.
func (m *Responses) Name() string { return m.name }

// Request sends the conversation and returns the model's response; failures
// are as for Chat.Request.
func (m *Responses) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
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
	r, err := m.client.Responses.New(ctx, body, ropts...)
	if err != nil {
		return model.Message{}, m.o.providerError(err)
	}
	return m.response(r, r.Output, strict, native)
}

func (m *Responses) body(messages []model.Message, p model.Params) (responses.ResponseNewParams, error) {
	body := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(m.name),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	items, err := m.input(messages)
	if err != nil {
		return body, err
	}
	body.Input.OfInputItemList = items
	if instr := lastInstructions(messages); instr != "" {
		body.Instructions = sdk.String(instr)
	}
	for _, d := range p.Tools {
		body.Tools = append(body.Tools, responsesTool(d))
	}
	s := p.Settings
	if s.Temperature != nil {
		body.Temperature = sdk.Float(*s.Temperature)
	}
	if s.TopP != nil {
		body.TopP = sdk.Float(*s.TopP)
	}
	if s.MaxTokens != nil {
		body.MaxOutputTokens = sdk.Int(int64(*s.MaxTokens))
	}
	// The Responses API has no stop or seed parameter. Dropping them would
	// change the answer silently, so they fail the request; a compatible
	// server that takes them gets them through ExtraBody.
	if len(s.Stop) > 0 {
		return body, fmt.Errorf("%w: the Responses API has no stop setting (use the Chat Completions model, or ExtraBody for a server that accepts it)", model.ErrModel)
	}
	if s.Seed != nil {
		return body, fmt.Errorf("%w: the Responses API has no seed setting (use the Chat Completions model, or ExtraBody for a server that accepts it)", model.ErrModel)
	}
	if len(p.Tools) > 0 {
		if s.ParallelToolCalls != nil {
			body.ParallelToolCalls = sdk.Bool(*s.ParallelToolCalls)
		}
		switch s.ToolChoice {
		case "":
		case "auto", "none", "required":
			body.ToolChoice.OfToolChoiceMode = sdk.Opt(responses.ToolChoiceOptions(s.ToolChoice))
		default:
			body.ToolChoice.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: s.ToolChoice}
		}
	}
	if o := p.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
		case model.OutputNative:
			js := &responses.ResponseFormatTextJSONSchemaConfigParam{Name: outputName(o.Name), Strict: sdk.Bool(true), Schema: strictSchema(o.Schema)}
			if o.Description != "" {
				js.Description = sdk.String(o.Description)
			}
			body.Text.Format.OfJSONSchema = js
		default:
			return body, fmt.Errorf("%w: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	return body, nil
}

func responsesTool(d tool.Definition) responses.ToolUnionParam {
	ft := &responses.FunctionToolParam{Name: d.Name}
	if d.Description != "" {
		ft.Description = sdk.String(d.Description)
	}
	// The Responses API makes function tools strict unless told otherwise.
	if d.IsStrict() {
		ft.Strict = sdk.Bool(true)
		ft.Parameters = strictSchema(d.Parameters)
	} else {
		ft.Strict = sdk.Bool(false)
		ft.Parameters = d.Parameters
		if ft.Parameters == nil {
			ft.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
		}
	}
	return responses.ToolUnionParam{OfFunction: ft}
}

func easyMessage(role responses.EasyInputMessageRole, text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
		Role: role, Content: responses.EasyInputMessageContentUnionParam{OfString: sdk.String(text)},
	}}
}

func callOutput(callID, text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: sdk.String(callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: sdk.String(text)},
	}}
}

// input maps the history to input items. Every part kind is handled
// explicitly; an unknown one fails the request.
func (m *Responses) input(messages []model.Message) (responses.ResponseInputParam, error) {
	out := make(responses.ResponseInputParam, 0, len(messages)+1)
	for _, msg := range messages {
		switch msg.Kind {
		case model.KindRequest:
			for _, p := range msg.Parts {
				switch p.Kind {
				case model.KindSystemPrompt:
					out = append(out, easyMessage(responses.EasyInputMessageRoleSystem, p.Text))
				case model.KindInstruction:
					out = append(out, easyMessage(responses.EasyInputMessageRoleDeveloper, p.Text))
				case model.KindUserPrompt:
					texts, err := userTexts(p)
					if err != nil {
						return nil, err
					}
					if len(texts) == 1 {
						out = append(out, easyMessage(responses.EasyInputMessageRoleUser, texts[0]))
						continue
					}
					list := make(responses.ResponseInputMessageContentListParam, len(texts))
					for i, t := range texts {
						list[i] = responses.ResponseInputContentParamOfInputText(t)
					}
					out = append(out, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
						Role: responses.EasyInputMessageRoleUser, Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: list},
					}})
				case model.KindToolReturn:
					text, err := returnText(p.Return)
					if err != nil {
						return nil, err
					}
					out = append(out, callOutput(p.Return.ToolCallID, text))
				case model.KindRetryPrompt:
					if p.ToolCallID != "" {
						out = append(out, callOutput(p.ToolCallID, p.Text))
					} else {
						out = append(out, easyMessage(responses.EasyInputMessageRoleUser, p.Text))
					}
				case model.KindText, model.KindToolCall, model.KindThinking, model.KindRefusal:
					return nil, fmt.Errorf("%w: %s part in a request message", model.ErrModel, p.Kind)
				default:
					return nil, fmt.Errorf("%w: unknown part kind %q", model.ErrModel, p.Kind)
				}
			}
		case model.KindResponse:
			for _, p := range msg.Parts {
				switch p.Kind {
				case model.KindText, model.KindRefusal:
					// A refusal is sent back as what the assistant said.
					if p.Text != "" {
						out = append(out, easyMessage(responses.EasyInputMessageRoleAssistant, p.Text))
					}
				case model.KindToolCall:
					if p.ToolCall == nil {
						return nil, fmt.Errorf("%w: tool_call part without a call", model.ErrModel)
					}
					out = append(out, responses.ResponseInputItemParamOfFunctionCall(argumentsText(p.ToolCall.Arguments), p.ToolCall.ID, p.ToolCall.Name))
				case model.KindThinking:
					// Reasoning items go back only to the provider that made
					// them, and only with the id it gave them.
					t := p.Thinking
					if t == nil || t.Provider != m.o.provider || t.ID == "" {
						continue
					}
					r := &responses.ResponseReasoningItemParam{ID: t.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}
					if p.Text != "" {
						r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: p.Text})
					}
					if t.Encrypted != "" {
						r.EncryptedContent = sdk.String(t.Encrypted)
					}
					out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: r})
				case model.KindSystemPrompt, model.KindInstruction, model.KindUserPrompt, model.KindToolReturn, model.KindRetryPrompt:
					return nil, fmt.Errorf("%w: %s part in a response message", model.ErrModel, p.Kind)
				default:
					return nil, fmt.Errorf("%w: unknown part kind %q", model.ErrModel, p.Kind)
				}
			}
		default:
			return nil, fmt.Errorf("%w: unknown message kind %q", model.ErrModel, msg.Kind)
		}
	}
	return out, nil
}

// response maps a response and its output items (those of r, or the ones a
// stream assembled) to a response message.
func (m *Responses) response(r *responses.Response, items []responses.ResponseOutputItemUnion, strict map[string]map[string]any, native map[string]any) (model.Message, error) {
	if r.Status == "failed" || r.Error.Message != "" {
		return model.Message{}, &model.ProviderError{Provider: m.o.provider, Code: string(r.Error.Code), Message: redact(r.Error.Message)}
	}
	var parts []model.Part
	refused, calls := false, false
	for _, it := range items {
		switch it.Type {
		case "reasoning":
			var texts []string
			for _, s := range it.Summary {
				texts = append(texts, s.Text)
			}
			if len(texts) == 0 {
				for _, c := range it.Content {
					texts = append(texts, c.Text)
				}
			}
			parts = append(parts, model.ThinkingPart(strings.Join(texts, "\n\n"), model.Thinking{Provider: m.o.provider, ID: it.ID, Encrypted: it.EncryptedContent}))
		case "message":
			for _, c := range it.Content {
				switch c.Type {
				case "output_text":
					text := c.Text
					if native != nil {
						text = string(dropAddedNulls(native, []byte(text)))
					}
					parts = append(parts, model.TextPart(text))
				case "refusal":
					refused = true
					parts = append(parts, model.RefusalPart(c.Refusal))
				default:
					return model.Message{}, fmt.Errorf("%w: %s returned message content of unsupported type %q", model.ErrModel, m.o.provider, c.Type)
				}
			}
		case "function_call":
			calls = true
			parts = append(parts, toolCallPart(it.CallID, it.Name, it.Arguments.OfString, strict))
		default:
			return model.Message{}, fmt.Errorf("%w: %s returned an output item of unsupported type %q", model.ErrModel, m.o.provider, it.Type)
		}
	}
	if len(parts) == 0 {
		return model.Message{}, m.o.errEmpty()
	}
	out := model.Response(parts...)
	out.ResponseID, out.ModelName, out.Provider = r.ID, string(r.Model), m.o.provider
	if out.ModelName == "" {
		out.ModelName = m.name
	}
	u := r.Usage
	out.Usage = &model.Usage{
		Requests:         1,
		InputTokens:      int(u.InputTokens),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(u.InputTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens),
		ReasoningTokens:  int(u.OutputTokensDetails.ReasoningTokens),
	}
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails.Reason == "content_filter":
		out.FinishReason = model.FinishContentFilter
	case r.Status == "incomplete":
		out.FinishReason = model.FinishLength
	case calls:
		out.FinishReason = model.FinishToolCalls
	case refused:
		out.FinishReason = model.FinishContentFilter
	default:
		out.FinishReason = model.FinishStop
	}
	return out, nil
}

// stream sends the request with stream: true and assembles the events into
// the message a plain request would return: the items come from the
// output_item.done events (arguments arrive as deltas and are complete
// there), the id, status and usage from response.completed.
func (m *Responses) stream(ctx context.Context, body responses.ResponseNewParams, ropts []option.RequestOption, strict map[string]map[string]any, native map[string]any) (model.Message, error) {
	s := m.client.Responses.NewStreaming(ctx, body, ropts...)
	defer s.Close()
	var (
		items []responses.ResponseOutputItemUnion
		final *responses.Response
	)
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_item.done":
			items = append(items, ev.Item)
		case "response.completed", "response.incomplete", "response.failed":
			r := ev.Response
			final = &r
		case "error":
			return model.Message{}, &model.ProviderError{Provider: m.o.provider, Code: ev.Code, Message: redact(ev.Message)}
		}
	}
	if err := s.Err(); err != nil {
		return model.Message{}, m.o.streamError(err)
	}
	if final == nil {
		return model.Message{}, m.o.errIncompleteStream(nil)
	}
	if len(final.Output) > 0 {
		items = final.Output
	}
	return m.response(final, items, strict, native)
}
