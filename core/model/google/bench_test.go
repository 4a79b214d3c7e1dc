//go:build unix

package google_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// benchHistory is a typical step of an agent: a system prompt, a user
// prompt, one tool round trip, two tools.
func benchHistory() ([]model.Message, model.Params) {
	h := []model.Message{
		model.Request(model.SystemPrompt("You are a helpful assistant."), model.UserPrompt("What's the weather in Paris and London?")),
		model.Response(model.TextPart("I'll check."),
			model.ToolCallPart("fc-1", "get_weather", json.RawMessage(`{"city":"Paris"}`)),
			model.ToolCallPart("fc-2", "get_weather", json.RawMessage(`{"city":"London"}`))),
		model.Request(
			model.ToolReturn(tool.Return{ToolCallID: "fc-1", Name: "get_weather", Content: map[string]any{"temp_c": 18, "sky": "clear"}}),
			model.ToolReturn(tool.Return{ToolCallID: "fc-2", Name: "get_weather", Content: "rain"})),
	}
	tz := weatherTool()
	tz.Name, tz.Description = "get_time", "Get the current time in a city"
	return h, model.Params{Tools: []tool.Definition{weatherTool(), tz}}
}

// BenchmarkGenerateContent puts the cost of streaming beside a whole
// response of the same message (stream_calls.json, and the same message as
// chunks in stream_calls.sse) against the same local server: "request" is
// Request on the JSON, "stream" Stream on the chunks with a handler that
// counts the deltas, "raw-json" and "raw-sse" a bare POST of the same
// request reading the body undecoded. Each reports cpu-ns/op, the
// process's CPU time per request (the server's included, the same on every
// side).
func BenchmarkGenerateContent(b *testing.B) {
	history, params := benchHistory()
	ctx := context.Background()
	serve := func(b *testing.B, body []byte, ctype string) (*modeltest.Canned, *google.Model) {
		srv := modeltest.NewCanned(b, ctype, body)
		retries := 0
		return srv, must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{
			APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: &retries}}))
	}
	raw := func(b *testing.B, body []byte, ctype string) {
		srv, m := serve(b, body, ctype)
		if ctype == "text/event-stream" {
			_, _ = m.Stream(ctx, history, params, func(model.Delta) {})
		} else if _, err := m.Request(ctx, history, params); err != nil {
			b.Fatal(err)
		}
		modeltest.Measure(b, srv.Repost(b, ctx))
	}
	jsonBody, sseBody := fixture(b, "stream_calls.json"), fixture(b, "stream_calls.sse")
	b.Run("request", func(b *testing.B) {
		_, m := serve(b, jsonBody, "application/json")
		modeltest.Measure(b, func() {
			if _, err := m.Request(ctx, history, params); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("stream", func(b *testing.B) {
		_, m := serve(b, sseBody, "text/event-stream")
		n := 0
		count := func(model.Delta) { n++ }
		modeltest.Measure(b, func() {
			if _, err := m.Stream(ctx, history, params, count); err != nil {
				b.Fatal(err)
			}
		})
		if n == 0 {
			b.Fatal("no deltas")
		}
	})
	b.Run("raw-json", func(b *testing.B) { raw(b, jsonBody, "application/json") })
	b.Run("raw-sse", func(b *testing.B) { raw(b, sseBody, "text/event-stream") })
}

// The benchmark's two fixtures hold the same message.
func TestBenchFixturesAgree(t *testing.T) {
	f := newFake(t, reply{file: "stream_calls.json"}, reply{file: "stream_calls.sse"})
	m := f.model(0)
	whole, err := m.Request(context.Background(), ask("Weather?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := m.Stream(context.Background(), ask("Weather?"), model.Params{}, func(model.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(whole, streamed) {
		t.Fatalf("whole %+v\nstreamed %+v", whole, streamed)
	}
}
