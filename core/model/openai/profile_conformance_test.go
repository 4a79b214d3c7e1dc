package openai_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// The conformance suite for a model of the Ollama profile, over a fake of
// Ollama's OpenAI-compatible API (https://github.com/ollama/ollama,
// docs/api/openai-compatibility) in the dialect of the servers the
// profile exists for: tool-call arguments sent as JSON objects instead
// of strings holding them, no usage in any answer, reasoning in a
// "reasoning" field, each streamed call whole in one chunk. The fake
// fails a request that carries what the profile leaves out (strict,
// parallel_tool_calls).
func TestOllamaProfileConformance(t *testing.T) {
	profile, err := openai.ProfileNamed(openai.ProfileOllama)
	if err != nil {
		t.Fatal(err)
	}
	modeltest.Run(t, modeltest.Provider{
		Name:    openai.ProfileOllama,
		NewFake: func(t *testing.T) modeltest.Fake { return modeltest.NewHTTPFake(t, ollamaWire{}) },
		NewModel: func(t *testing.T, url string, o modeltest.Options) model.Model {
			retries := o.MaxRetries
			// url is a bare host, as OLLAMA_BASE_URL is often written: the
			// profile adds /v1.
			return must(openai.NewChatFromConfig("llama3.2", openai.Options{
				Profile:    profile,
				Config:     openai.Config{APIKey: o.APIKey, BaseURL: url, MaxRetries: &retries, Headers: o.Headers, Timeout: o.Timeout},
				Streaming:  o.Streaming,
				HTTPBounds: o.HTTPBounds,
			}))
		},
		NativeOutput: true,
		Carries:      map[string]bool{"text": true, "resource_link": true},
		Usage:        []string{}, // the dialect reports none
		Thinking:     true,
	})
}

// ollamaWire is Chat Completions as Ollama's compatibility layer speaks it.
type ollamaWire struct{}

func (ollamaWire) Decode(r *http.Request, body []byte) (modeltest.Seen, error) {
	if r.URL.Path != "/v1/chat/completions" {
		return modeltest.Seen{}, fmt.Errorf("path %s, want /v1/chat/completions", r.URL.Path)
	}
	var req struct {
		ParallelToolCalls *bool `json:"parallel_tool_calls"`
		Tools             []struct {
			Function map[string]json.RawMessage `json:"function"`
		} `json:"tools"`
		ResponseFormat *struct {
			JSONSchema map[string]json.RawMessage `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return modeltest.Seen{}, err
	}
	if req.ParallelToolCalls != nil {
		return modeltest.Seen{}, fmt.Errorf("parallel_tool_calls sent to a server without it")
	}
	for _, tl := range req.Tools {
		if _, ok := tl.Function["strict"]; ok {
			return modeltest.Seen{}, fmt.Errorf("strict sent on tool %s", tl.Function["name"])
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		if _, ok := rf.JSONSchema["strict"]; ok {
			return modeltest.Seen{}, fmt.Errorf("strict sent on the response format")
		}
	}
	return chatWire{}.Decode(r, body)
}

func (ollamaWire) Error(w http.ResponseWriter, tn modeltest.Turn) { openaiError(w, tn) }

// objectCalls are tn's calls with their arguments as objects.
func objectCalls(tn modeltest.Turn, indexed bool) []any {
	var calls []any
	for i, c := range tn.Calls {
		call := map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		if indexed {
			call["index"] = i
		}
		calls = append(calls, call)
	}
	return calls
}

func (ollamaWire) Answer(w http.ResponseWriter, s modeltest.Seen, tn modeltest.Turn) {
	const id, created = "chatcmpl-ollama", 1767225600
	if !s.Stream {
		msg := map[string]any{"role": "assistant", "content": tn.Text}
		if tn.Thinking != "" {
			msg["reasoning"] = tn.Thinking
		}
		if len(tn.Calls) > 0 {
			msg["tool_calls"] = objectCalls(tn, false)
		}
		modeltest.WriteJSON(w, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": s.Model, "system_fingerprint": "fp_ollama",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": chatFinish(tn)}},
		})
		return
	}
	sse := modeltest.StartSSE(w)
	chunk := func(delta map[string]any, finish any) {
		delta["role"] = "assistant"
		sse.Event("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": s.Model, "system_fingerprint": "fp_ollama",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
	}
	for _, p := range modeltest.Pieces(tn.Thinking, 9) {
		chunk(map[string]any{"content": "", "reasoning": p}, nil)
	}
	for _, p := range modeltest.Pieces(tn.Text, 7) {
		chunk(map[string]any{"content": p}, nil)
	}
	for _, c := range objectCalls(tn, true) {
		chunk(map[string]any{"content": "", "tool_calls": []any{c}}, nil)
	}
	chunk(map[string]any{"content": ""}, chatFinish(tn))
	sse.Event("", "[DONE]")
}
