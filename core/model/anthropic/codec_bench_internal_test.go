package anthropic

import (
	"encoding/json"
	"os"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func codecBenchInput() ([]model.Message, model.Params) {
	h := []model.Message{
		model.Request(model.SystemPrompt("You are a helpful assistant."), model.UserPrompt("What's the weather and time in San Francisco?")),
		model.Response(model.TextPart("I'll check."),
			model.ToolCallPart("toolu_01A09q90qw90lq917835lq9", "get_weather", json.RawMessage(`{"location":"San Francisco, CA"}`)),
			model.ToolCallPart("toolu_01B19q90qw90lq917835lq8", "get_time", json.RawMessage(`{"timezone":"America/Los_Angeles"}`))),
		model.Request(
			model.ToolReturn(tool.Return{ToolCallID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Content: map[string]any{"temp_f": 65, "sky": "clear"}}),
			model.ToolReturn(tool.Return{ToolCallID: "toolu_01B19q90qw90lq917835lq8", Name: "get_time", Content: "12:04"})),
	}
	s := map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}, "required": []any{"location"}}
	return h, model.Params{Tools: []tool.Definition{{Name: "get_weather", Parameters: s}, {Name: "get_time", Parameters: s}}}
}

// BenchmarkEncodeRequest maps a typical step and encodes it, with the
// hand-written encoder and with encoding/json.
func BenchmarkEncodeRequest(b *testing.B) {
	m := must(New(sdk.NewClient(option.WithoutEnvironmentDefaults()), "claude", Options{}))
	h, p := codecBenchInput()
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, _, _ := m.buildRequest(h, p)
			if _, err := m.appendRequest(make([]byte, 0, 4096), body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, _, _ := m.buildRequest(h, p)
			if _, err := json.Marshal(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeResponse decodes and maps a response with parallel tool
// calls, with the hand-written decoder and with encoding/json.
func BenchmarkDecodeResponse(b *testing.B) {
	m := must(New(sdk.NewClient(option.WithoutEnvironmentDefaults()), "claude", Options{}))
	raw, err := os.ReadFile("testdata/tool_use_parallel.json")
	if err != nil {
		b.Fatal(err)
	}
	for name, decode := range map[string]func([]byte, *wireResponse) error{
		"hand":          decodeResponse,
		"encoding-json": func(b []byte, r *wireResponse) error { return json.Unmarshal(b, r) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var r wireResponse
				if err := decode(raw, &r); err != nil {
					b.Fatal(err)
				}
				if _, err := m.parseResponse(&r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
