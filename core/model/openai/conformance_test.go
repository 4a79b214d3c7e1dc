package openai_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// The conformance suite over fakes of the Chat Completions and Responses
// APIs, built from the shapes of OpenAI's API reference
// (https://platform.openai.com/docs/api-reference/chat and
// .../responses): the request bodies, the response objects, the streamed
// chunks and events, and the error body {"error":{message,type,param,code}}.

func TestChatConformance(t *testing.T) {
	modeltest.Run(t, modeltest.Provider{
		Name:    openai.DefaultProvider,
		NewFake: func(t *testing.T) modeltest.Fake { return modeltest.NewHTTPFake(t, chatWire{}) },
		NewModel: func(t *testing.T, url string, o modeltest.Options) model.Model {
			return must(openai.NewChatFromConfig("gpt-4.1-mini", options(url, o)))
		},
		NativeOutput: true,
		// Tool messages carry text only.
		Carries: map[string]bool{"text": true, "resource_link": true},
		Usage:   []string{modeltest.UsageInput, modeltest.UsageOutput, modeltest.UsageCacheRead, modeltest.UsageReasoning},
	})
}

func TestResponsesConformance(t *testing.T) {
	modeltest.Run(t, modeltest.Provider{
		Name:    openai.DefaultProvider,
		NewFake: func(t *testing.T) modeltest.Fake { return modeltest.NewHTTPFake(t, responsesWire{}) },
		NewModel: func(t *testing.T, url string, o modeltest.Options) model.Model {
			return must(openai.NewResponsesFromConfig("gpt-5-mini", options(url, o)))
		},
		NativeOutput: true,
		// function_call_output takes input_text, input_image and input_file.
		Carries:          map[string]bool{"text": true, "image": true, "document": true, "resource_link": true},
		Usage:            []string{modeltest.UsageInput, modeltest.UsageOutput, modeltest.UsageCacheRead, modeltest.UsageReasoning},
		Thinking:         true,
		ThinkingSentBack: true,
	})
}

func options(url string, o modeltest.Options) openai.Options {
	retries := o.MaxRetries
	return openai.Options{
		Config:     openai.Config{APIKey: o.APIKey, BaseURL: url, MaxRetries: &retries, Headers: o.Headers, Timeout: o.Timeout},
		Streaming:  o.Streaming,
		HTTPBounds: o.HTTPBounds,
	}
}

// openaiError is the error body both APIs send.
func openaiError(w http.ResponseWriter, tn modeltest.Turn) {
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": tn.Message, "type": tn.Code, "param": nil, "code": tn.Code,
	}})
}

// resultOf reads a tool result's content: a string, or a list of parts
// whose types kind maps to the suite's kinds.
func resultOf(callID string, content json.RawMessage, kind func(typ string) string) (modeltest.Result, error) {
	r := modeltest.Result{CallID: callID}
	var s string
	if json.Unmarshal(content, &s) == nil {
		r.Kinds, r.Text = []string{modeltest.KindText}, s
	} else {
		var parts []map[string]any
		if err := json.Unmarshal(content, &parts); err != nil {
			return r, fmt.Errorf("tool result content %s: %w", content, err)
		}
		for _, p := range parts {
			typ, _ := p["type"].(string)
			k := kind(typ)
			if k == "" {
				return r, fmt.Errorf("tool result part of unknown type %q", typ)
			}
			r.Kinds = append(r.Kinds, k)
			if t, ok := p["text"].(string); ok {
				r.Text += t
			}
		}
	}
	if rest, ok := strings.CutPrefix(r.Text, "Error: "); ok {
		r.IsError, r.Text = true, rest
		if len(r.Kinds) > 1 && r.Kinds[0] == modeltest.KindText {
			r.Kinds = r.Kinds[1:] // the lead text part of a rich error return
		}
	}
	return r, nil
}

// usageJSON is a usage object: prompt_tokens or input_tokens, and so on.
func usageJSON(u model.Usage, input, output string) map[string]any {
	return map[string]any{
		input:               u.InputTokens,
		output:              u.OutputTokens,
		"total_tokens":      u.InputTokens + u.OutputTokens,
		input + "_details":  map[string]any{"cached_tokens": u.CacheReadTokens},
		output + "_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	}
}

// chatWire is the Chat Completions API: POST /chat/completions.
type chatWire struct{}

func (chatWire) Decode(r *http.Request, body []byte) (modeltest.Seen, error) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		return modeltest.Seen{}, fmt.Errorf("path %s, want /chat/completions", r.URL.Path)
	}
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return modeltest.Seen{}, err
	}
	s := modeltest.Seen{Model: req.Model, Stream: req.Stream}
	if req.Stream && (req.StreamOptions == nil || !req.StreamOptions.IncludeUsage) {
		return s, fmt.Errorf("a streamed request without stream_options.include_usage gets no usage")
	}
	for _, tl := range req.Tools {
		if tl.Type != "function" {
			return s, fmt.Errorf("tool of type %q", tl.Type)
		}
		s.Tools = append(s.Tools, tl.Function.Name)
	}
	s.NativeOutput = req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema"
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			for _, c := range m.ToolCalls {
				s.Calls = append(s.Calls, modeltest.Call{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
			}
		case "tool":
			r, err := resultOf(m.ToolCallID, m.Content, func(typ string) string {
				switch typ {
				case "text":
					return modeltest.KindText
				case "image_url":
					return modeltest.KindImage
				case "file":
					return modeltest.KindDocument
				case "input_audio":
					return modeltest.KindAudio
				}
				return ""
			})
			if err != nil {
				return s, err
			}
			s.Results = append(s.Results, r)
		}
	}
	return s, nil
}

func (chatWire) Error(w http.ResponseWriter, tn modeltest.Turn) { openaiError(w, tn) }

func chatFinish(tn modeltest.Turn) string {
	switch f := modeltest.FinishOf(tn); f {
	case model.FinishLength:
		return "length"
	default:
		return f // stop, tool_calls and content_filter are the API's own
	}
}

func (chatWire) Answer(w http.ResponseWriter, s modeltest.Seen, tn modeltest.Turn) {
	const id, created = "chatcmpl-conformance", 1767225600
	if !s.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		if tn.Text != "" {
			msg["content"] = tn.Text
		}
		if len(tn.Calls) > 0 {
			var calls []any
			for _, c := range tn.Calls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": string(c.Arguments)}})
			}
			msg["tool_calls"] = calls
		}
		modeltest.WriteJSON(w, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": s.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": chatFinish(tn)}},
			"usage":   usageJSON(tn.Usage, "prompt_tokens", "completion_tokens"),
		})
		return
	}
	sse := modeltest.StartSSE(w)
	chunk := func(delta map[string]any, finish any) {
		sse.Event("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": s.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, p := range modeltest.Pieces(tn.Text, 7) {
		chunk(map[string]any{"content": p}, nil)
	}
	for i, c := range tn.Calls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		for _, p := range modeltest.Pieces(string(c.Arguments), 5) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)
		}
	}
	chunk(map[string]any{}, chatFinish(tn))
	// stream_options.include_usage: a last chunk with no choices.
	sse.Event("", map[string]any{
		"id": id, "object": "chat.completion.chunk", "created": created, "model": s.Model, "choices": []any{},
		"usage": usageJSON(tn.Usage, "prompt_tokens", "completion_tokens"),
	})
	sse.Event("", "[DONE]")
}

// responsesWire is the Responses API: POST /responses.
type responsesWire struct{}

func (responsesWire) Decode(r *http.Request, body []byte) (modeltest.Seen, error) {
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		return modeltest.Seen{}, fmt.Errorf("path %s, want /responses", r.URL.Path)
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Text *struct {
			Format struct {
				Type string `json:"type"`
			} `json:"format"`
		} `json:"text"`
		Input []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
			ID        string          `json:"id"`
			Summary   []struct {
				Text string `json:"text"`
			} `json:"summary"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return modeltest.Seen{}, err
	}
	s := modeltest.Seen{Model: req.Model, Stream: req.Stream}
	for _, tl := range req.Tools {
		if tl.Type != "function" {
			return s, fmt.Errorf("tool of type %q", tl.Type)
		}
		s.Tools = append(s.Tools, tl.Name)
	}
	s.NativeOutput = req.Text != nil && req.Text.Format.Type == "json_schema"
	for _, it := range req.Input {
		switch it.Type {
		case "function_call":
			s.Calls = append(s.Calls, modeltest.Call{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Arguments)})
		case "reasoning":
			if it.ID == "" {
				return s, fmt.Errorf("a reasoning item without its id")
			}
			var texts []string
			for _, x := range it.Summary {
				texts = append(texts, x.Text)
			}
			s.Thinking = append(s.Thinking, strings.Join(texts, "\n\n"))
		case "function_call_output":
			r, err := resultOf(it.CallID, it.Output, func(typ string) string {
				switch typ {
				case "input_text":
					return modeltest.KindText
				case "input_image":
					return modeltest.KindImage
				case "input_file":
					return modeltest.KindDocument
				}
				return ""
			})
			if err != nil {
				return s, err
			}
			s.Results = append(s.Results, r)
		}
	}
	return s, nil
}

func (responsesWire) Error(w http.ResponseWriter, tn modeltest.Turn) { openaiError(w, tn) }

// output returns the output items of tn: a reasoning item, a message and
// function calls, each as the done event shows it.
func responsesOutput(tn modeltest.Turn) []map[string]any {
	var out []map[string]any
	if tn.Thinking != "" {
		out = append(out, map[string]any{"type": "reasoning", "id": "rs_1", "encrypted_content": "opaque-reasoning",
			"summary": []any{map[string]any{"type": "summary_text", "text": tn.Thinking}}})
	}
	if tn.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": tn.Text, "annotations": []any{}}}})
	}
	for i, c := range tn.Calls {
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i+1), "call_id": c.ID,
			"name": c.Name, "arguments": string(c.Arguments), "status": "completed"})
	}
	return out
}

func responsesObject(s modeltest.Seen, tn modeltest.Turn, output []map[string]any) map[string]any {
	r := map[string]any{
		"id": "resp_conformance", "object": "response", "created_at": 1767225600, "model": s.Model,
		"status": "completed", "error": nil, "incomplete_details": nil, "output": output,
		"usage": usageJSON(tn.Usage, "input_tokens", "output_tokens"),
	}
	if tn.Finish == model.FinishLength {
		r["status"], r["incomplete_details"] = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	return r
}

func (responsesWire) Answer(w http.ResponseWriter, s modeltest.Seen, tn modeltest.Turn) {
	output := responsesOutput(tn)
	if !s.Stream {
		modeltest.WriteJSON(w, responsesObject(s, tn, output))
		return
	}
	sse := modeltest.StartSSE(w)
	seq := 0
	event := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		sse.Event(typ, fields)
	}
	started := responsesObject(s, tn, []map[string]any{})
	started["status"], started["usage"] = "in_progress", nil
	event("response.created", map[string]any{"response": started})
	event("response.in_progress", map[string]any{"response": started})
	for i, it := range output {
		switch it["type"] {
		case "reasoning":
			event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"type": "reasoning", "id": it["id"], "summary": []any{}}})
			event("response.reasoning_summary_part.added", map[string]any{"output_index": i, "item_id": it["id"], "summary_index": 0,
				"part": map[string]any{"type": "summary_text", "text": ""}})
			for _, p := range modeltest.Pieces(tn.Thinking, 9) {
				event("response.reasoning_summary_text.delta", map[string]any{"output_index": i, "item_id": it["id"], "summary_index": 0, "delta": p})
			}
			event("response.reasoning_summary_text.done", map[string]any{"output_index": i, "item_id": it["id"], "summary_index": 0, "text": tn.Thinking})
			event("response.reasoning_summary_part.done", map[string]any{"output_index": i, "item_id": it["id"], "summary_index": 0,
				"part": map[string]any{"type": "summary_text", "text": tn.Thinking}})
		case "message":
			event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"type": "message", "id": it["id"], "status": "in_progress", "role": "assistant", "content": []any{}}})
			event("response.content_part.added", map[string]any{"output_index": i, "item_id": it["id"], "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, p := range modeltest.Pieces(tn.Text, 7) {
				event("response.output_text.delta", map[string]any{"output_index": i, "item_id": it["id"], "content_index": 0, "delta": p})
			}
			event("response.output_text.done", map[string]any{"output_index": i, "item_id": it["id"], "content_index": 0, "text": tn.Text})
			event("response.content_part.done", map[string]any{"output_index": i, "item_id": it["id"], "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": tn.Text, "annotations": []any{}}})
		case "function_call":
			event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"type": "function_call", "id": it["id"], "call_id": it["call_id"], "name": it["name"], "arguments": "", "status": "in_progress"}})
			args, _ := it["arguments"].(string)
			for _, p := range modeltest.Pieces(args, 5) {
				event("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": it["id"], "delta": p})
			}
			event("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": it["id"], "arguments": args})
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	typ := "response.completed"
	if tn.Finish == model.FinishLength {
		typ = "response.incomplete"
	}
	event(typ, map[string]any{"response": responsesObject(s, tn, output)})
}
