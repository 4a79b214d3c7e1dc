package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The benchmarks put the provider side by side with a raw net/http POST of
// the same request bytes to the same local server, over the same
// transport, reading the same response. The difference of their CPU time
// per request (user + system, the server's included, which is the same in
// both) is what the provider adds: mapping the history, the SDK's request
// building and response decoding, mapping the answer back.

func benchHistory() ([]model.Message, model.Params) {
	req := model.Request(model.SystemPrompt("You are a helpful assistant."), model.UserPrompt("What is the weather in Boston and Paris?"))
	req.Instructions = "Answer briefly."
	resp := model.Response(model.ToolCallPart("call_1", "get_current_weather", json.RawMessage(`{"location":"Boston, MA"}`)))
	ret := model.Request(model.ToolReturn(tool.Return{ToolCallID: "call_1", Name: "get_current_weather", Content: map[string]any{"temp": 22, "unit": "celsius"}}))
	// One plain tool and one strict one (its schema converted per request).
	w := weatherTool(false)
	ws := weatherTool(true)
	ws.Name = "get_time"
	return []model.Message{req, resp, ret}, model.Params{Tools: []tool.Definition{w, ws}}
}

func runBench(b *testing.B, fixtureName string, newModel func(srv *modeltest.Canned) model.Model, path string) {
	body := []byte(fixture(b, fixtureName))
	msgs, params := benchHistory()
	ctx := context.Background()
	b.Run("provider", func(b *testing.B) {
		m := newModel(modeltest.NewCanned(b, "application/json", body))
		modeltest.Measure(b, func() {
			if _, err := m.Request(ctx, msgs, params); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("sdk-post", func(b *testing.B) {
		// The same bytes through the SDK client without the provider's
		// mapping: what the SDK's request pipeline costs by itself.
		srv := modeltest.NewCanned(b, "application/json", body)
		if _, err := newModel(srv).Request(ctx, msgs, params); err != nil {
			b.Fatal(err)
		}
		reqBytes := srv.First(b).Body
		c := newSDKClient(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithHTTPClient(srv.Client()))
		modeltest.Measure(b, func() {
			var res []byte
			if err := c.Post(ctx, path[1:], reqBytes, &res); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("raw", func(b *testing.B) {
		srv := modeltest.NewCanned(b, "application/json", body)
		// Record the provider's request once (body and headers, so that the
		// server's share of the CPU is the same), then replay it raw.
		if _, err := newModel(srv).Request(ctx, msgs, params); err != nil {
			b.Fatal(err)
		}
		modeltest.Measure(b, srv.Repost(b, ctx))
	})
}

func BenchmarkChatRequest(b *testing.B) {
	runBench(b, "chat_tool_calls.json", func(srv *modeltest.Canned) model.Model {
		return must(New(newSDKClient(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithHTTPClient(srv.Client())), "gpt-4o-mini", Options{}))
	}, "/chat/completions")
}

func BenchmarkResponsesRequest(b *testing.B) {
	runBench(b, "responses_reasoning_tools.json", func(srv *modeltest.Canned) model.Model {
		return must(NewResponses(newSDKClient(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithHTTPClient(srv.Client())), "o4-mini", Options{}))
	}, "/responses")
}

// BenchmarkChatMapping is the provider's own work per request, without the
// HTTP exchange: building and encoding the request, decoding and mapping
// the response.
func BenchmarkChatMapping(b *testing.B) {
	body := []byte(fixture(b, "chat_tool_calls.json"))
	msgs, params := benchHistory()
	m := must(New(newSDKClient(), "gpt-4o-mini", Options{}))
	b.ReportAllocs()
	for b.Loop() {
		req, tools, err := m.body(msgs, params)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := encodeBody(req, tools); err != nil {
			b.Fatal(err)
		}
		var c chatCompletion
		if err := decodeChat(body, &c); err != nil {
			b.Fatal(err)
		}
		if _, err := m.response(&c, newReader(m.o, params)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResponsesMapping is BenchmarkChatMapping for the Responses API.
func BenchmarkResponsesMapping(b *testing.B) {
	body := []byte(fixture(b, "responses_reasoning_tools.json"))
	msgs, params := benchHistory()
	m := must(NewResponses(newSDKClient(), "o4-mini", Options{}))
	b.ReportAllocs()
	for b.Loop() {
		req, tools, err := m.body(msgs, params)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := encodeBody(req, tools); err != nil {
			b.Fatal(err)
		}
		var r responsesResponse
		if err := decodeResponses(body, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := m.response(&r, r.Output, newReader(m.o, params)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStream puts the cost of streaming beside a plain request of the
// same response (the JSON fixture, and the same response as server-sent
// events), against the same local server: "request" is Request on the
// JSON, "stream" Stream on the events with a handler that counts the
// deltas, "streaming-request" Request with Options.Streaming (assembly without
// deltas) and "raw-sse" a bare POST reading the events undecoded.
func BenchmarkStream(b *testing.B) {
	type api struct {
		name, json, sse string
		newModel        func(c sdkClient, o Options) model.Model
	}
	for _, a := range []api{
		{"chat", "chat_tool_calls.json", "chat_stream_parallel.sse",
			func(c sdkClient, o Options) model.Model { return must(New(c, "gpt-4o-mini", o)) }},
		{"responses", "responses_reasoning_tools.json", "responses_stream_reasoning_tools.sse",
			func(c sdkClient, o Options) model.Model { return must(NewResponses(c, "o4-mini", o)) }},
	} {
		msgs, params := benchHistory()
		ctx := context.Background()
		client := func(srv *modeltest.Canned) sdkClient {
			return newSDKClient(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithHTTPClient(srv.Client()))
		}
		b.Run(a.name+"/request", func(b *testing.B) {
			srv := modeltest.NewCanned(b, "application/json", []byte(fixture(b, a.json)))
			m := a.newModel(client(srv), Options{})
			modeltest.Measure(b, func() {
				if _, err := m.Request(ctx, msgs, params); err != nil {
					b.Fatal(err)
				}
			})
		})
		sseBody := []byte(fixture(b, a.sse))
		b.Run(a.name+"/stream", func(b *testing.B) {
			srv := modeltest.NewCanned(b, "text/event-stream", sseBody)
			m := a.newModel(client(srv), Options{}).(model.Streamer)
			n := 0
			count := func(model.Delta) { n++ }
			modeltest.Measure(b, func() {
				if _, err := m.Stream(ctx, msgs, params, count); err != nil {
					b.Fatal(err)
				}
			})
			if n == 0 {
				b.Fatal("no deltas")
			}
		})
		b.Run(a.name+"/streaming-request", func(b *testing.B) {
			srv := modeltest.NewCanned(b, "text/event-stream", sseBody)
			m := a.newModel(client(srv), Options{Streaming: true})
			modeltest.Measure(b, func() {
				if _, err := m.Request(ctx, msgs, params); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(a.name+"/raw-sse", func(b *testing.B) {
			srv := modeltest.NewCanned(b, "text/event-stream", sseBody)
			if _, err := a.newModel(client(srv), Options{Streaming: true}).Request(ctx, msgs, params); err != nil {
				b.Fatal(err)
			}
			modeltest.Measure(b, srv.Repost(b, ctx))
		})
	}
}
