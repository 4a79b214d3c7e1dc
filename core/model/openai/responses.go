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
)

// Responses is a model served by OpenAI's Responses API (POST /responses).
// Unlike Chat Completions it returns the model's reasoning as items that
// can be sent back: they become thinking parts carrying the item id and its
// encrypted content (requested with include reasoning.encrypted_content),
// and are sent back to the provider that produced them only.
type Responses struct {
	client sdk.Client
	name   string
	o      resolved
}

var _ model.Streamer = (*Responses)(nil)

// NewResponses returns a Responses API model named name over client; the
// caller owns the client's authentication, base URL, retries and HTTP
// client, so o.Config must be zero. An empty name is an error.
func NewResponses(client sdk.Client, name string, o Options) (*Responses, error) {
	r, err := forClient(name, o)
	if err != nil {
		return nil, err
	}
	return &Responses{client: client, name: name, o: r}, nil
}

// NewResponsesFromConfig returns a Responses API model whose client
// o.Config describes (see Config). An empty name or an invalid setting is
// an error; a missing key is reported by every request.
func NewResponsesFromConfig(name string, o Options) (*Responses, error) {
	client, r, err := forConfig(name, o)
	if err != nil {
		return nil, err
	}
	return &Responses{client: client, name: name, o: r}, nil
}

// Request sends the conversation and returns the model's response; failures
// are as for Chat.Request.
func (m *Responses) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	msg, err := m.send(ctx, messages, params, m.o.streaming, nil)
	return msg, m.o.redact(err, params.Settings)
}

// Streaming reports whether the model was configured to stream (see
// Chat.Streaming).
func (m *Responses) Streaming() bool { return m.o.streaming }

// Stream is Request over a streamed response, whatever Options.Streaming
// says, reporting output text and reasoning summary fragments, function
// call starts (output_item.added) and argument fragments to deltas as the
// events arrive; a call is reported done at its
// function_call_arguments.done (or, failing that, its output_item.done),
// before the response ends. The returned message and the failures are
// Request's; the SDK retries only before the first event. With a nil
// deltas, Stream behaves as Request.
func (m *Responses) Stream(ctx context.Context, messages []model.Message, params model.Params, deltas model.DeltaHandler) (model.Message, error) {
	if deltas == nil {
		return m.Request(ctx, messages, params)
	}
	msg, err := m.send(ctx, messages, params, true, deltas)
	return msg, m.o.redact(err, params.Settings)
}

// send makes one request, streamed when streamed is set, reporting deltas
// (which may be nil) while it streams.
func (m *Responses) send(ctx context.Context, messages []model.Message, params model.Params, streamed bool, deltas model.DeltaHandler) (model.Message, error) {
	ctx, cancel, ropts, err := m.o.begin(ctx, params.Settings)
	if err != nil {
		return model.Message{}, err
	}
	defer cancel()
	body, tools, err := m.body(messages, params)
	if err != nil {
		return model.Message{}, err
	}
	body.Stream = streamed
	raw, err := encodeBody(body, tools)
	if err != nil {
		return model.Message{}, fmt.Errorf("%w: encoding the request: %w", model.ErrModel, err)
	}
	rd := newReader(m.o, params)
	if streamed {
		var res *http.Response
		err := m.client.Post(ctx, "responses", raw, &res, ropts...)
		return m.stream(newEvents(ssestream.NewDecoder(res), err, decodeStreamEvent), rd, deltas)
	}
	var res []byte
	if err := m.client.Post(ctx, "responses", raw, &res, ropts...); err != nil {
		return model.Message{}, m.o.providerError(err)
	}
	var r responsesResponse
	if err := decodeResponses(res, &r); err != nil {
		return model.Message{}, fmt.Errorf("%w: %s returned a malformed response: %w", model.ErrModel, m.o.provider, err)
	}
	return m.response(&r, r.Output, rd)
}

func (m *Responses) body(messages []model.Message, p model.Params) (body *responsesRequest, tools []json.RawMessage, err error) {
	body = &responsesRequest{Model: m.name, Include: []string{"reasoning.encrypted_content"}}
	items, err := m.input(messages)
	if err != nil {
		return nil, nil, err
	}
	body.Input = items
	body.Instructions = lastInstructions(messages)
	if len(p.Tools) > 0 {
		tools = make([]json.RawMessage, len(p.Tools))
		for i, d := range p.Tools {
			if tools[i], err = responsesToolJSON(m.o.profile.tool(d)); err != nil {
				return nil, nil, fmt.Errorf("%w: tool %q: %w", model.ErrModel, d.Name, err)
			}
		}
	}
	s := p.Settings
	body.Temperature, body.TopP, body.MaxOutputTokens = s.Temperature, s.TopP, s.MaxTokens
	// The Responses API has no stop or seed parameter. Dropping them would
	// change the answer silently, so they fail the request; a compatible
	// server that takes them gets them through ExtraBody.
	if len(s.Stop) > 0 {
		return nil, nil, fmt.Errorf("%w: the Responses API has no stop setting (use the Chat Completions model, or ExtraBody for a server that accepts it)", model.ErrModel)
	}
	if s.Seed != nil {
		return nil, nil, fmt.Errorf("%w: the Responses API has no seed setting (use the Chat Completions model, or ExtraBody for a server that accepts it)", model.ErrModel)
	}
	if len(p.Tools) > 0 {
		if !m.o.profile.NoParallelToolCalls {
			body.ParallelToolCalls = s.ParallelToolCalls
		}
		switch s.ToolChoice {
		case "":
		case "auto", "none", "required":
			body.ToolChoice = s.ToolChoice
		default:
			body.ToolChoice = functionChoice{Type: "function", Name: s.ToolChoice}
		}
	}
	if o := p.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
		case model.OutputNative:
			schema, strict, err := m.o.profile.outputSchema(o.Schema)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: output schema: %w", model.ErrModel, err)
			}
			body.Text = &responsesText{Format: textFormat{
				Type: "json_schema", Name: outputName(o.Name), Description: o.Description, Schema: schema, Strict: strict,
			}}
		default:
			return nil, nil, fmt.Errorf("%w: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	return body, tools, nil
}

// input maps the history to input items. Every part kind is handled
// explicitly; an unknown one fails the request.
func (m *Responses) input(messages []model.Message) ([]any, error) {
	out := make([]any, 0, len(messages)+1)
	for _, msg := range messages {
		switch msg.Kind {
		case model.KindRequest:
			for _, p := range msg.Parts {
				switch p.Kind {
				case model.KindSystemPrompt:
					out = append(out, inputMessage{Role: "system", Content: p.Text})
				case model.KindInstruction:
					role := "developer"
					if m.o.profile.NoDeveloperRole {
						role = "system"
					}
					out = append(out, inputMessage{Role: role, Content: p.Text})
				case model.KindUserPrompt:
					texts, err := userTexts(p)
					if err != nil {
						return nil, err
					}
					if len(texts) == 1 {
						out = append(out, inputMessage{Role: "user", Content: texts[0]})
						continue
					}
					list := make([]textPart, len(texts))
					for i, t := range texts {
						list[i] = textPart{Type: "input_text", Text: t}
					}
					out = append(out, inputMessage{Role: "user", Content: list})
				case model.KindToolReturn:
					output, err := responsesToolOutput(p.Return)
					if err != nil {
						return nil, err
					}
					out = append(out, functionOutputItem{Type: "function_call_output", CallID: p.Return.ToolCallID, Output: output})
				case model.KindRetryPrompt:
					if p.ToolCallID != "" {
						out = append(out, functionOutputItem{Type: "function_call_output", CallID: p.ToolCallID, Output: p.Text})
					} else {
						out = append(out, inputMessage{Role: "user", Content: p.Text})
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
						out = append(out, inputMessage{Role: "assistant", Content: p.Text})
					}
				case model.KindToolCall:
					if p.ToolCall == nil {
						return nil, fmt.Errorf("%w: tool_call part without a call", model.ErrModel)
					}
					out = append(out, functionCallItem{Type: "function_call", CallID: p.ToolCall.ID, Name: p.ToolCall.Name, Arguments: argumentsText(p.ToolCall.Arguments)})
				case model.KindThinking:
					// Reasoning items go back only to the provider that made
					// them, and only with the id it gave them.
					t := p.Thinking
					if t == nil || t.Provider != m.o.provider || t.ID == "" {
						continue
					}
					r := reasoningItem{Type: "reasoning", ID: t.ID, Summary: []textPart{}, EncryptedContent: t.Encrypted}
					if p.Text != "" {
						r.Summary = append(r.Summary, textPart{Type: "summary_text", Text: p.Text})
					}
					out = append(out, r)
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
func (m *Responses) response(r *responsesResponse, items []outputItem, rd reader) (model.Message, error) {
	if r.Status == "failed" || r.ErrorMessage != "" {
		pe := &model.ProviderError{Provider: m.o.provider, Code: r.ErrorCode, Message: r.ErrorMessage}
		if pe.Message == "" {
			pe.Message = "the response failed"
		}
		return model.Message{}, pe
	}
	var parts []model.Part
	refused, calls := false, false
	for i := range items {
		it := &items[i]
		switch it.Type {
		case "reasoning":
			texts := it.Summary
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
					if rd.native != nil {
						text = string(dropAddedNulls(rd.native, []byte(text)))
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
			parts = append(parts, toolCallPart(it.CallID, it.Name, it.Arguments, rd.strict))
		default:
			return model.Message{}, fmt.Errorf("%w: %s returned an output item of unsupported type %q", model.ErrModel, m.o.provider, it.Type)
		}
	}
	if len(parts) == 0 {
		return model.Message{}, m.o.errEmpty()
	}
	out := model.Response(parts...)
	out.ResponseID, out.ModelName, out.Provider = r.ID, r.Model, m.o.provider
	if out.ModelName == "" {
		out.ModelName = m.name
	}
	out.Usage = &model.Usage{Requests: 1}
	if u := r.Usage; u != nil {
		out.Usage.InputTokens, out.Usage.OutputTokens = u.InputTokens, u.OutputTokens
		out.Usage.CacheReadTokens, out.Usage.CacheWriteTokens, out.Usage.ReasoningTokens = u.CachedTokens, u.CacheWriteTokens, u.ReasoningTokens
	}
	incomplete := r.IncompleteReason
	switch {
	case r.Status == "incomplete" && incomplete == "content_filter":
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

// stream assembles the events of a streamed response into the message a
// plain request would return: the items come from the output_item.done
// events (arguments arrive as deltas and are complete there), the id,
// status and usage from the final response.completed (or .incomplete,
// .failed) event. It reports the events' deltas to deltas when it is not
// nil.
func (m *Responses) stream(s *events[streamEvent], rd reader, deltas model.DeltaHandler) (model.Message, error) {
	defer s.Close()
	var (
		items []outputItem
		final *responsesResponse
		rep   = responsesReporter{deltas: deltas, rd: rd}
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
			return model.Message{}, &model.ProviderError{Provider: m.o.provider, Code: ev.Code, Message: ev.Message}
		}
		if deltas != nil {
			rep.report(&ev)
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
	return m.response(final, items, rd)
}

// responsesReporter turns Responses stream events into deltas. Calls are
// numbered among the response's function_call items, in output order, as
// response maps them to parts.
type responsesReporter struct {
	deltas model.DeltaHandler
	rd     reader
	// calls maps the output index of each function_call item to its call.
	calls map[int]*streamedCall
}

type streamedCall struct {
	index    int
	id, name string
	done     bool
}

func (r *responsesReporter) report(ev *streamEvent) {
	switch ev.Type {
	case "response.output_text.delta":
		if ev.Delta != "" {
			r.deltas(model.Delta{Kind: model.DeltaText, Text: ev.Delta})
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if ev.Delta != "" {
			r.deltas(model.Delta{Kind: model.DeltaThinking, Text: ev.Delta})
		}
	case "response.reasoning_summary_part.added":
		if ev.SummaryIndex > 0 {
			// response joins an item's summary parts with a blank line.
			r.deltas(model.Delta{Kind: model.DeltaThinking, Text: "\n\n"})
		}
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			r.start(ev.OutputIndex, &ev.Item)
		}
	case "response.function_call_arguments.delta":
		if c := r.calls[ev.OutputIndex]; c != nil && ev.Delta != "" {
			r.deltas(model.Delta{Kind: model.DeltaToolCallArguments, Index: c.index, Text: ev.Delta})
		}
	case "response.function_call_arguments.done":
		if c := r.calls[ev.OutputIndex]; c != nil {
			r.done(c, ev.Arguments)
		}
	case "response.output_item.done":
		if ev.Item.Type != "function_call" {
			return
		}
		c := r.calls[ev.OutputIndex]
		if c == nil {
			// A server that skipped output_item.added: the call still
			// starts before it is done.
			c = r.start(ev.OutputIndex, &ev.Item)
		}
		c.id, c.name = ev.Item.CallID, ev.Item.Name
		r.done(c, ev.Item.Arguments)
	}
}

// start registers the function_call item at output index i and reports
// its start.
func (r *responsesReporter) start(i int, it *outputItem) *streamedCall {
	if r.calls == nil {
		r.calls = make(map[int]*streamedCall)
	}
	c := &streamedCall{index: len(r.calls), id: it.CallID, name: it.Name}
	r.calls[i] = c
	r.deltas(model.Delta{Kind: model.DeltaToolCallStart, Index: c.index, Call: &model.ToolCall{ID: c.id, Name: c.name}})
	return c
}

// done reports c done with its whole arguments text, once.
func (r *responsesReporter) done(c *streamedCall, args string) {
	if c.done {
		return
	}
	c.done = true
	p := toolCallPart(c.id, c.name, args, r.rd.strict)
	r.deltas(model.Delta{Kind: model.DeltaToolCallDone, Index: c.index, Call: p.ToolCall})
}

// Name returns the model's name, as requests send it.
func (m *Responses) Name() string { return m.name }
