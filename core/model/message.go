package model

import (
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Part kinds, as they appear in the "kind" field of serialised parts.
const (
	KindSystemPrompt = "system_prompt"
	KindInstruction  = "instruction"
	KindUserPrompt   = "user_prompt"
	KindToolReturn   = "tool_return"
	KindRetryPrompt  = "retry_prompt"
	KindText         = "text"
	KindToolCall     = "tool_call"
	// KindThinking is a model's reasoning, kept in history so that the
	// provider that produced it can be sent it back (some require that).
	KindThinking = "thinking"
	// KindRefusal is a model declining to answer (OpenAI's refusal).
	KindRefusal = "refusal"
)

// Message kinds.
const (
	KindRequest  = "request"
	KindResponse = "response"
)

// Part is one element of a message. Its JSON form is an object tagged by
// "kind"; every field is present except those marked omitempty.
type Part struct {
	Kind string `json:"kind"`
	// Text of system_prompt, instruction, retry_prompt, text, thinking and
	// refusal parts.
	Text string `json:"text,omitempty"`
	// Thinking is set on thinking parts.
	Thinking *Thinking `json:"-"`
	// Content of a user_prompt: a list of {kind:"text", text} items.
	Content []UserContent `json:"content,omitempty"`
	// ToolCall is set on tool_call parts.
	*ToolCall `json:",omitempty"`
	// Return is set on tool_return parts.
	Return *tool.Return `json:"-"`
	// ToolCallID links a retry_prompt to a call.
	ToolCallID string `json:"-"`
}

// ToolCall is a call the model asks for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Thinking is what a provider needs to recognise a thinking part it
// produced. Providers send thinking parts back only to the provider (and
// model family) named here; others drop them.
type Thinking struct {
	// Provider names who produced it ("anthropic", "openai").
	Provider string `json:"provider,omitempty"`
	// ID is the provider's id of the reasoning item (OpenAI Responses).
	ID string `json:"id,omitempty"`
	// Signature authenticates the text (Anthropic).
	Signature string `json:"signature,omitempty"`
	// Encrypted is reasoning the provider keeps opaque (Anthropic's
	// redacted_thinking data, OpenAI's encrypted_content).
	Encrypted string `json:"encrypted,omitempty"`
}

// Call converts the part to a tool.Call.
func (c *ToolCall) Call() tool.Call { return tool.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments} }

// UserContent is one item of a user prompt.
type UserContent struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// SystemPrompt returns a system_prompt part.
func SystemPrompt(text string) Part { return Part{Kind: KindSystemPrompt, Text: text} }

// Instruction returns an instruction part.
func Instruction(text string) Part { return Part{Kind: KindInstruction, Text: text} }

// UserPrompt returns a user_prompt part with one text item.
func UserPrompt(text string) Part {
	return Part{Kind: KindUserPrompt, Content: []UserContent{{Kind: "text", Text: text}}}
}

// ToolReturn returns a tool_return part.
func ToolReturn(r tool.Return) Part { return Part{Kind: KindToolReturn, Return: &r} }

// RetryPrompt returns a retry_prompt part, optionally tied to a call.
func RetryPrompt(text, toolCallID string) Part {
	return Part{Kind: KindRetryPrompt, Text: text, ToolCallID: toolCallID}
}

// TextPart returns a response text part.
func TextPart(text string) Part { return Part{Kind: KindText, Text: text} }

// ThinkingPart returns a response thinking part.
func ThinkingPart(text string, t Thinking) Part {
	return Part{Kind: KindThinking, Text: text, Thinking: &t}
}

// RefusalPart returns a response refusal part.
func RefusalPart(text string) Part { return Part{Kind: KindRefusal, Text: text} }

// ToolCallPart returns a response tool_call part. Empty arguments mean {}.
func ToolCallPart(id, name string, args json.RawMessage) Part {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	return Part{Kind: KindToolCall, ToolCall: &ToolCall{ID: id, Name: name, Arguments: args}}
}

// MarshalJSON writes the part in its tagged form.
func (p Part) MarshalJSON() ([]byte, error) {
	switch p.Kind {
	case KindSystemPrompt, KindInstruction, KindText, KindRefusal:
		return json.Marshal(struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		}{p.Kind, p.Text})
	case KindThinking:
		var t Thinking
		if p.Thinking != nil {
			t = *p.Thinking
		}
		return json.Marshal(struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
			Thinking
		}{p.Kind, p.Text, t})
	case KindUserPrompt:
		return json.Marshal(struct {
			Kind    string        `json:"kind"`
			Content []UserContent `json:"content"`
		}{p.Kind, p.Content})
	case KindRetryPrompt:
		return json.Marshal(struct {
			Kind       string `json:"kind"`
			Text       string `json:"text"`
			ToolCallID string `json:"tool_call_id,omitempty"`
		}{p.Kind, p.Text, p.ToolCallID})
	case KindToolCall:
		if p.ToolCall == nil {
			return nil, fmt.Errorf("model: tool_call part without a call")
		}
		return json.Marshal(struct {
			Kind string `json:"kind"`
			*ToolCall
		}{p.Kind, p.ToolCall})
	case KindToolReturn:
		if p.Return == nil {
			return nil, fmt.Errorf("model: tool_return part without a return")
		}
		md := p.Return.WireMetadata()
		if md == nil {
			// Hosts read metadata unconditionally; send {} rather than omit it.
			md = map[string]any{}
		}
		// plainReturn drops Return's MarshalJSON, which embedding would
		// promote (losing "kind"); its Runtime is in md.
		type plainReturn tool.Return
		return json.Marshal(struct {
			Kind string `json:"kind"`
			*plainReturn
			Metadata map[string]any `json:"metadata"`
		}{p.Kind, (*plainReturn)(p.Return), md})
	}
	return nil, fmt.Errorf("model: unknown part kind %q", p.Kind)
}

// UnmarshalJSON reads a tagged part, rejecting unknown kinds.
func (p *Part) UnmarshalJSON(b []byte) error {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("model: part: %w", err)
	}
	switch head.Kind {
	case KindThinking:
		var v struct {
			Text string `json:"text"`
			Thinking
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("model: thinking part: %w", err)
		}
		*p = ThinkingPart(v.Text, v.Thinking)
	case KindSystemPrompt, KindInstruction, KindText, KindUserPrompt, KindRetryPrompt, KindRefusal:
		var v struct {
			Text       string        `json:"text"`
			Content    []UserContent `json:"content"`
			ToolCallID string        `json:"tool_call_id"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("model: %s part: %w", head.Kind, err)
		}
		*p = Part{Kind: head.Kind, Text: v.Text, Content: v.Content, ToolCallID: v.ToolCallID}
	case KindToolCall:
		var c ToolCall
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("model: tool_call part: %w", err)
		}
		if c.Name == "" {
			return fmt.Errorf("model: tool_call part without a name")
		}
		*p = ToolCallPart(c.ID, c.Name, c.Arguments)
	case KindToolReturn:
		var r tool.Return
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("model: tool_return part: %w", err)
		}
		*p = ToolReturn(r)
	default:
		return fmt.Errorf("model: unknown part kind %q", head.Kind)
	}
	return nil
}

// Usage counts what a run or a response consumed. InputTokens include the
// cached ones; OutputTokens include the reasoning ones.
type Usage struct {
	Requests     int `json:"requests"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	ToolCalls    int `json:"tool_calls"`
	// CacheReadTokens of the input were read from the provider's prompt
	// cache; CacheWriteTokens were written to it.
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens of the output were spent thinking.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Requests += o.Requests
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.ToolCalls += o.ToolCalls
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// Message is a request sent to the model or a response received from it.
type Message struct {
	Kind  string `json:"kind"`
	Parts []Part `json:"parts"`
	// Instructions of a request, rendered once per request.
	Instructions string `json:"instructions,omitempty"`
	RunID        string `json:"run_id,omitempty"`
	// Usage, ModelName, FinishReason, Provider and ResponseID describe a
	// response. FinishReason is one of the Finish* constants.
	Usage        *Usage `json:"usage,omitempty"`
	ModelName    string `json:"model_name,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Provider     string `json:"provider,omitempty"`
	ResponseID   string `json:"response_id,omitempty"`
	// Attempts are the failed requests to other models before this
	// response, in order (see Fallback).
	Attempts []Attempt `json:"attempts,omitempty"`
}

// Finish reasons of a response, the same for every provider.
const (
	FinishStop          = "stop"           // the model ended its answer
	FinishLength        = "length"         // a token limit cut it
	FinishToolCalls     = "tool_calls"     // it asks for tool calls
	FinishContentFilter = "content_filter" // a filter or a refusal stopped it
	FinishError         = "error"          // the provider reported an error
)

// Request returns a request message.
func Request(parts ...Part) Message { return Message{Kind: KindRequest, Parts: parts} }

// Response returns a response message.
func Response(parts ...Part) Message { return Message{Kind: KindResponse, Parts: parts} }

// ToolCalls returns the tool calls of a response, in model order, each
// with its position (Index).
func (m Message) ToolCalls() []tool.Call {
	n := 0
	for _, p := range m.Parts {
		if p.Kind == KindToolCall && p.ToolCall != nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]tool.Call, 0, n) // sized once: a response may hold hundreds
	for _, p := range m.Parts {
		if p.Kind == KindToolCall && p.ToolCall != nil {
			c := p.ToolCall.Call()
			c.Index = len(out)
			out = append(out, c)
		}
	}
	return out
}

// Text returns the concatenated text parts of a response.
func (m Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if p.Kind == KindText {
			s += p.Text
		}
	}
	return s
}

// Returns returns the tool returns of a request.
func (m Message) Returns() []tool.Return {
	var out []tool.Return
	for _, p := range m.Parts {
		if p.Kind == KindToolReturn && p.Return != nil {
			out = append(out, *p.Return)
		}
	}
	return out
}

// Clone returns a copy whose part slice may be changed independently.
func (m Message) Clone() Message {
	m.Parts = append([]Part(nil), m.Parts...)
	return m
}

// CloneMessages copies a history.
func CloneMessages(ms []Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = m.Clone()
	}
	return out
}
