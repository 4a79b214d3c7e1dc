package anthropic_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// The conformance suite over a fake of the Messages API, built from the
// shapes of Anthropic's API reference (https://docs.anthropic.com/en/api/messages,
// .../messages-streaming and .../errors): the request body, the message
// object, the streamed events (message_start, content_block_start/delta/
// stop, message_delta, message_stop, ping) and the error body
// {"type":"error","error":{type,message}}.

func TestConformance(t *testing.T) {
	modeltest.Run(t, modeltest.Provider{
		Name:    anthropic.ProviderName,
		NewFake: func(t *testing.T) modeltest.Fake { return modeltest.NewHTTPFake(t, messagesWire{}) },
		NewModel: func(t *testing.T, url string, o modeltest.Options) model.Model {
			retries := o.MaxRetries
			return must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{
				Config:     anthropic.Config{APIKey: o.APIKey, BaseURL: url, MaxRetries: &retries, Headers: o.Headers, Timeout: o.Timeout},
				Streaming:  o.Streaming,
				HTTPBounds: o.HTTPBounds,
			}))
		},
		NativeOutput: true, // output_config.format
		// tool_result content takes text, image and document blocks.
		Carries: map[string]bool{"text": true, "image": true, "document": true, "resource_link": true},
		Usage: []string{modeltest.UsageInput, modeltest.UsageOutput, modeltest.UsageCacheRead,
			modeltest.UsageCacheWrite, modeltest.UsageReasoning},
		Thinking:         true,
		ThinkingSentBack: true,
	})
}

// messagesWire is the Messages API: POST /v1/messages.
type messagesWire struct{}

func (messagesWire) Decode(r *http.Request, body []byte) (modeltest.Seen, error) {
	if r.URL.Path != "/v1/messages" {
		return modeltest.Seen{}, fmt.Errorf("path %s, want /v1/messages", r.URL.Path)
	}
	var req struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Stream    bool   `json:"stream"`
		Tools     []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
		OutputConfig *struct {
			Format struct {
				Type string `json:"type"`
			} `json:"format"`
		} `json:"output_config"`
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return modeltest.Seen{}, err
	}
	s := modeltest.Seen{Model: req.Model, Stream: req.Stream}
	if req.MaxTokens <= 0 {
		return s, fmt.Errorf("max_tokens is required")
	}
	for _, tl := range req.Tools {
		if tl.InputSchema == nil {
			return s, fmt.Errorf("tool %q without input_schema", tl.Name)
		}
		s.Tools = append(s.Tools, tl.Name)
	}
	s.NativeOutput = req.OutputConfig != nil && req.OutputConfig.Format.Type == "json_schema"
	for _, m := range req.Messages {
		for _, raw := range m.Content {
			var b struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(raw, &b); err != nil {
				return s, err
			}
			switch {
			case b.Type == "thinking" && m.Role == "assistant":
				var th struct {
					Thinking  string `json:"thinking"`
					Signature string `json:"signature"`
				}
				if err := json.Unmarshal(raw, &th); err != nil {
					return s, err
				}
				if th.Signature == "" {
					return s, fmt.Errorf("a thinking block without its signature")
				}
				s.Thinking = append(s.Thinking, th.Thinking)
			case b.Type == "tool_use" && m.Role == "assistant":
				s.Calls = append(s.Calls, modeltest.Call{ID: b.ID, Name: b.Name, Arguments: b.Input})
			case b.Type == "tool_result" && m.Role == "user":
				res, err := toolResult(b.ToolUseID, b.Content)
				if err != nil {
					return s, err
				}
				res.IsError = b.IsError
				s.Results = append(s.Results, res)
			case b.Type == "tool_use" || b.Type == "tool_result":
				return s, fmt.Errorf("a %s block in a %s message", b.Type, m.Role)
			}
		}
	}
	return s, nil
}

// toolResult reads a tool_result's content: a string or a list of text,
// image and document blocks.
func toolResult(id string, content json.RawMessage) (modeltest.Result, error) {
	r := modeltest.Result{CallID: id}
	var s string
	if len(content) == 0 || json.Unmarshal(content, &s) == nil {
		r.Kinds, r.Text = []string{modeltest.KindText}, s
		return r, nil
	}
	var blocks []struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Source *struct {
			Type string `json:"type"`
		} `json:"source"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		return r, fmt.Errorf("tool_result content: %w", err)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			r.Kinds = append(r.Kinds, modeltest.KindText)
			r.Text += b.Text
		case "image", "document":
			if b.Source == nil {
				return r, fmt.Errorf("a %s block without a source", b.Type)
			}
			r.Kinds = append(r.Kinds, b.Type) // the suite's kinds are these names
		default:
			return r, fmt.Errorf("tool_result block of type %q", b.Type)
		}
	}
	return r, nil
}

// KeepAlive is the Messages API's ping event, which a stalled stream
// sends besides SSE comments.
func (messagesWire) KeepAlive() string { return "event: ping\ndata: {\"type\": \"ping\"}\n\n" }

func (messagesWire) Error(w http.ResponseWriter, tn modeltest.Turn) {
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "error", "error": map[string]any{"type": tn.Code, "message": tn.Message}, "request_id": "req_conformance",
	})
}

func stopReason(tn modeltest.Turn) string {
	switch modeltest.FinishOf(tn) {
	case model.FinishToolCalls:
		return "tool_use"
	case model.FinishLength:
		return "max_tokens"
	case model.FinishContentFilter:
		return "refusal"
	}
	return "end_turn"
}

// usage is the Messages API usage of u: input_tokens counts the input
// that was neither read from nor written to the cache.
func usage(u model.Usage) map[string]any {
	return map[string]any{
		"input_tokens":                u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens,
		"cache_creation_input_tokens": u.CacheWriteTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"output_tokens":               u.OutputTokens,
		"output_tokens_details":       map[string]any{"thinking_tokens": u.ReasoningTokens},
	}
}

const signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"

// blocks returns the content blocks of tn as the whole message holds them.
func blocks(tn modeltest.Turn) []map[string]any {
	var out []map[string]any
	if tn.Thinking != "" {
		out = append(out, map[string]any{"type": "thinking", "thinking": tn.Thinking, "signature": signature})
	}
	if tn.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": tn.Text})
	}
	for _, c := range tn.Calls {
		out = append(out, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.Arguments})
	}
	return out
}

func (messagesWire) Answer(w http.ResponseWriter, s modeltest.Seen, tn modeltest.Turn) {
	content := blocks(tn)
	msg := map[string]any{
		"id": "msg_conformance", "type": "message", "role": "assistant", "model": s.Model,
		"content": content, "stop_reason": stopReason(tn), "stop_sequence": nil, "usage": usage(tn.Usage),
	}
	if !s.Stream {
		modeltest.WriteJSON(w, msg)
		return
	}
	sse := modeltest.StartSSE(w)
	event := func(typ string, fields map[string]any) {
		fields["type"] = typ
		sse.Event(typ, fields)
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	startUsage := usage(tn.Usage)
	startUsage["output_tokens"] = 1
	delete(startUsage, "output_tokens_details")
	start["content"], start["stop_reason"], start["usage"] = []any{}, nil, startUsage
	event("message_start", map[string]any{"message": start})
	event("ping", map[string]any{})
	for i, b := range content {
		switch b["type"] {
		case "thinking":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, p := range modeltest.Pieces(tn.Thinking, 9) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": p}})
			}
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "signature_delta", "signature": signature}})
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, p := range modeltest.Pieces(tn.Text, 7) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": p}})
			}
		case "tool_use":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			args, _ := b["input"].(json.RawMessage)
			for _, p := range modeltest.Pieces(string(args), 5) {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	// message_delta's usage counts are cumulative totals.
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stopReason(tn), "stop_sequence": nil},
		"usage": usage(tn.Usage),
	})
	event("message_stop", map[string]any{})
}
