package anthropic

import (
	"bytes"
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/tool"
)

func ptr[T any](v T) *T { return &v }

// TestEncodeMatchesJSON checks the hand-written request encoder against
// encoding/json on the same structs, byte for byte.
func TestEncodeMatchesJSON(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": "<query> & more"}}, "required": []any{"q"}}
	for name, r := range map[string]*wireRequest{
		"minimal": {Model: "claude", MaxTokens: 1, Messages: []wireMessage{{Role: "user", Content: []any{textBlock{Type: "text", Text: "hi"}}}}},
		"everything": {
			Model: "claude-sonnet-4-5", MaxTokens: 4096,
			System: []textBlock{{Type: "text", Text: "Be \"brief\".\n\tNo <html> & \u2028 \x01 \xff"}},
			Messages: []wireMessage{
				{Role: "user", Content: []any{textBlock{Type: "text", Text: "Weather in Zürich? 🌧"}}},
				{Role: "assistant", Content: []any{
					redactedThinkingBlock{Type: "redacted_thinking", Data: "EmwK+/="},
					thinkingBlock{Type: "thinking", Thinking: "", Signature: "sig"},
					toolUseBlock{Type: "tool_use", ID: "toolu_1", Name: "get_weather", Input: json.RawMessage(`{"location":"Zürich"}`)},
				}},
				{Role: "user", Content: []any{
					toolResultBlock{Type: "tool_result", ToolUseID: "toolu_1", Content: []any{textBlock{Type: "text", Text: `{"temp_c":11}`}}, IsError: true},
					toolResultBlock{Type: "tool_result", ToolUseID: "toolu_2"},
					toolResultBlock{Type: "tool_result", ToolUseID: "toolu_3", Content: []any{
						textBlock{Type: "text", Text: "chart <1>"},
						imageBlock{Type: "image", Source: mediaSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0K+/="}},
						imageBlock{Type: "image", Source: mediaSource{Type: "url", URL: "https://x.test/a.png?a=1&b=<2>"}},
						documentBlock{Type: "document", Source: mediaSource{Type: "base64", MediaType: "application/pdf", Data: "JVBERi0="}, Title: "Q3 \"report\".pdf"},
						documentBlock{Type: "document", Source: mediaSource{Type: "text", MediaType: "text/plain", Data: "plain\ntext"}},
					}},
					textBlock{Type: "text", Text: "thanks"},
				}},
			},
			Tools:         []wireTool{{Name: "search", Description: "Search <web>", InputSchema: schema, Strict: true}, {Name: "noop", InputSchema: tool.EmptySchema()}},
			ToolChoice:    &wireToolChoice{Type: "tool", Name: "search", DisableParallelToolUse: true},
			Temperature:   ptr(0.7),
			TopP:          ptr(1e-7),
			StopSequences: []string{"END", "\n\nHuman:"},
			Thinking:      &wireThinking{Type: "enabled", BudgetTokens: 2048},
			OutputConfig:  &wireOutputConfig{Format: wireOutputFormat{Type: "json_schema", Schema: schema}},
			Stream:        true,
		},
	} {
		m := must(New(sdk.NewClient(option.WithoutEnvironmentDefaults()), "claude", Options{}))
		for range 2 { // the second time the schemas come from the cache
			got, err := m.appendRequest(nil, r)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s:\ngot  %s\nwant %s", name, got, want)
			}
		}
	}
}

func TestAppendFloatRejectsNaN(t *testing.T) {
	nan := 0.0
	nan /= nan
	if _, err := appendFloat(nil, nan); err == nil {
		t.Fatal("NaN encoded")
	}
}

// FuzzAppendString checks the string encoder against encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\x00\x1f\x7f", "<a href='x'>&amp;</a>", "\u2028\u2029", "\xff\xfe bad utf8 \xc3", "ünïcødé 🌧"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// FuzzAppendFloat checks the number encoder against encoding/json.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 0.2, 0.7, 1e-7, 1e21, -3.5, 123456789.125} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		want, err := json.Marshal(v)
		got, gerr := appendFloat(nil, v)
		if (err != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("appendFloat(%v) = %s, %v; want %s, %v", v, got, gerr, want, err)
		}
	})
}

// must returns m, panicking on a building error: the tests build valid
// models only.
func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}
