//go:build unix

package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// benchHistory is a typical step of an agent: a system prompt, a user
// prompt, one tool round trip, two tools.
func benchHistory() ([]model.Message, model.Params) {
	h := []model.Message{
		model.Request(model.SystemPrompt("You are a helpful assistant."), model.UserPrompt("What's the weather and time in San Francisco?")),
		model.Response(model.TextPart("I'll check."),
			model.ToolCallPart("toolu_01A09q90qw90lq917835lq9", "get_weather", json.RawMessage(`{"location":"San Francisco, CA"}`)),
			model.ToolCallPart("toolu_01B19q90qw90lq917835lq8", "get_time", json.RawMessage(`{"timezone":"America/Los_Angeles"}`))),
		model.Request(
			model.ToolReturn(tool.Return{ToolCallID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Content: map[string]any{"temp_f": 65, "sky": "clear"}}),
			model.ToolReturn(tool.Return{ToolCallID: "toolu_01B19q90qw90lq917835lq8", Name: "get_time", Content: "12:04"})),
	}
	tz := weatherTool()
	tz.Name, tz.Description = "get_time", "Get the current time in a timezone"
	return h, model.Params{Tools: []tool.Definition{weatherTool(), tz}}
}

// BenchmarkMessagesRequest compares one model request through the provider
// (mapping, the SDK's encoding, retries machinery, decoding, mapping back)
// with a raw net/http POST of the same request (the body and headers the
// provider sent) whose response is read but not decoded, against the same
// local server. Both report
// cpu-ns/op, the process's CPU time per request (the server's included, the
// same on both sides); the provider's extra CPU per request is the
// difference, which "extra" measures with the two interleaved. "sdk-floor"
// is the SDK client alone posting the same bytes, without the provider's
// mapping and codec.
func BenchmarkMessagesRequest(b *testing.B) {
	srv := modeltest.NewCanned(b, "application/json", fixture(b, "tool_use_parallel.json"))
	client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey(testKey), option.WithBaseURL(srv.URL),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	m := must(anthropic.New(client, "claude-sonnet-4-5", anthropic.Options{}))
	history, params := benchHistory()
	ctx := context.Background()
	if _, err := m.Request(ctx, history, params); err != nil {
		b.Fatal(err)
	}
	reqBody := srv.First(b).Body
	post := srv.Repost(b, ctx)

	b.Run("provider", func(b *testing.B) {
		modeltest.Measure(b, func() {
			if _, err := m.Request(ctx, history, params); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("sdk-floor", func(b *testing.B) {
		modeltest.Measure(b, func() {
			var out []byte
			if err := client.Post(ctx, "v1/messages", json.RawMessage(reqBody), &out); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("raw", func(b *testing.B) { modeltest.Measure(b, post) })
	// extra interleaves the two, one of each per iteration, so that the
	// load of the machine weighs on both alike, and reports the difference.
	b.Run("extra", func(b *testing.B) {
		var prov, raw time.Duration
		for b.Loop() {
			t0 := modeltest.CPUTime(b)
			if _, err := m.Request(ctx, history, params); err != nil {
				b.Fatal(err)
			}
			t1 := modeltest.CPUTime(b)
			post()
			t2 := modeltest.CPUTime(b)
			prov += t1 - t0
			raw += t2 - t1
		}
		b.ReportMetric(float64(prov-raw)/float64(b.N), "extra-cpu-ns/op")
	})
}

// BenchmarkStream puts the cost of streaming beside a plain request of the
// same response (tool_use_parallel.json, and the same message as events in
// stream_tool_use_parallel.sse) against the same local server: "request"
// is Request on the JSON, "stream" Stream on the events with a handler
// that counts the deltas, "streaming-request" Request with WithStreaming
// (assembled, no deltas) and "raw-sse" a bare POST of the same
// request reading the events undecoded. Each reports cpu-ns/op as
// BenchmarkMessagesRequest does.
func BenchmarkStream(b *testing.B) {
	history, params := benchHistory()
	ctx := context.Background()
	// serve starts a server answering body and a model over it.
	serve := func(b *testing.B, body []byte, ctype string) (*modeltest.Canned, *anthropic.Model) {
		srv := modeltest.NewCanned(b, ctype, body)
		client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey(testKey), option.WithBaseURL(srv.URL),
			option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
		return srv, must(anthropic.New(client, "claude-sonnet-4-5", anthropic.Options{Streaming: ctype == "text/event-stream"}))
	}
	jsonBody, sseBody := fixture(b, "tool_use_parallel.json"), fixture(b, "stream_tool_use_parallel.sse")
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
	b.Run("streaming-request", func(b *testing.B) {
		_, m := serve(b, sseBody, "text/event-stream")
		modeltest.Measure(b, func() {
			if _, err := m.Request(ctx, history, params); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("raw-sse", func(b *testing.B) {
		srv, m := serve(b, sseBody, "text/event-stream")
		if _, err := m.Request(ctx, history, params); err != nil {
			b.Fatal(err)
		}
		modeltest.Measure(b, srv.Repost(b, ctx))
	})
}
