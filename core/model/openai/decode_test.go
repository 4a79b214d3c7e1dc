package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// stdChat is decodeChat's reference: the same fields read by encoding/json.
type stdChat struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int    `json:"index"`
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// checkChat asserts that decodeChat and encoding/json agree on b.
func checkChat(t *testing.T, b []byte) {
	var c chatCompletion
	err := decodeChat(b, &c)
	if (err == nil) != json.Valid(b) {
		t.Fatalf("decodeChat err = %v, json.Valid = %v on %q", err, json.Valid(b), b)
	}
	var s stdChat
	if err != nil || json.Unmarshal(b, &s) != nil || foldedKeys(b) || !utf8.Valid(b) {
		// Not a completion's shape, keys encoding/json matches
		// case-insensitively, or invalid UTF-8 it replaces (the API sends
		// exact keys and UTF-8): only the validity must agree.
		return
	}
	if c.ID != s.ID || c.Model != s.Model || len(c.Choices) != len(s.Choices) {
		t.Fatalf("decodeChat %+v, encoding/json %+v", c, s)
	}
	for i, ch := range s.Choices {
		g := c.Choices[i]
		if g.Index != ch.Index || g.FinishReason != ch.FinishReason || g.Message.Content != ch.Message.Content ||
			g.Message.Refusal != ch.Message.Refusal || len(g.Message.ToolCalls) != len(ch.Message.ToolCalls) {
			t.Fatalf("choice %d: decodeChat %+v, encoding/json %+v", i, g, ch)
		}
		for j, tc := range ch.Message.ToolCalls {
			if gc := g.Message.ToolCalls[j]; gc.ID != tc.ID || gc.Name != tc.Function.Name || gc.Arguments != tc.Function.Arguments {
				t.Fatalf("call %d: decodeChat %+v, encoding/json %+v", j, gc, tc)
			}
		}
	}
	if (c.Usage == nil) != (s.Usage == nil) || c.Usage != nil &&
		(c.Usage.PromptTokens != s.Usage.PromptTokens || c.Usage.CompletionTokens != s.Usage.CompletionTokens || c.Usage.CachedTokens != s.Usage.PromptTokensDetails.CachedTokens) {
		t.Fatalf("usage: decodeChat %+v, encoding/json %+v", c.Usage, s.Usage)
	}
}

var chatKeys = map[string]bool{
	"id": true, "model": true, "choices": true, "index": true, "finish_reason": true, "message": true,
	"content": true, "refusal": true, "tool_calls": true, "function": true, "name": true, "arguments": true,
	"usage": true, "prompt_tokens": true, "completion_tokens": true, "prompt_tokens_details": true, "cached_tokens": true,
}

// foldedKeys reports whether b has a key that is a field name in another
// case, which encoding/json would match and the API never sends.
func foldedKeys(b []byte) bool {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if l := strings.ToLower(k); l != k && chatKeys[l] || !chatKeys[k] && chatKeys[strings.ToLower(k)] {
					return true
				}
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

func TestDecodeChatAgreesWithEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob("testdata/chat_*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkChat(t, b)
	}
}

// FuzzDecodeChat checks the one-pass decoder against encoding/json: the
// same documents are valid, and a completion decodes to the same fields.
func FuzzDecodeChat(f *testing.F) {
	files, _ := filepath.Glob("testdata/chat_*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Add([]byte(`{"id":"x","choices":[{"index":0,"message":{"content":"a\u00e9\"b","tool_calls":[{"id":"c","function":{"name":"n","arguments":"{\"a\":1}"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null}}],"usage":null}`))
	f.Add([]byte(`{"id": 1, "choices": {}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkChat(t, b)
	})
}

// Compatible servers send "tool_calls": null; it is no call at all.
func TestDecodeNullLists(t *testing.T) {
	var c chatCompletion
	if err := decodeChat([]byte(`{"choices":[{"message":{"content":"hi","tool_calls":null}}],"usage":null}`), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Choices) != 1 || len(c.Choices[0].Message.ToolCalls) != 0 || c.Usage != nil {
		t.Fatalf("%+v", c)
	}
	var r responsesResponse
	if err := decodeResponses([]byte(`{"output":null,"usage":null}`), &r); err != nil || len(r.Output) != 0 || r.Usage != nil {
		t.Fatalf("%+v %v", r, err)
	}
}

// FuzzDecodeResponses checks that the Responses decoder accepts exactly
// the valid documents, never panics, and reads the output list's length as
// encoding/json does.
func FuzzDecodeResponses(f *testing.F) {
	files, _ := filepath.Glob("testdata/responses_*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Add([]byte(`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"a\":"}`))
	f.Add([]byte(`{"type":"response.function_call_arguments.done","output_index":1,"arguments":{"a":1},"summary_index":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r responsesResponse
		err := decodeResponses(b, &r)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("decodeResponses err = %v, json.Valid = %v", err, json.Valid(b))
		}
		var ev streamEvent
		_ = decodeStreamEvent(b, &ev)
		var s struct {
			Output []json.RawMessage `json:"output"`
		}
		if err == nil && json.Unmarshal(b, &s) == nil && !foldedOutput(b) && len(s.Output) != len(r.Output) {
			t.Fatalf("output: %d items, encoding/json %d", len(r.Output), len(s.Output))
		}
	})
}

// foldedOutput reports whether b has an "output" key in another case.
func foldedOutput(b []byte) bool {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	for k := range m {
		if k != "output" && strings.EqualFold(k, "output") {
			return true
		}
	}
	return false
}
