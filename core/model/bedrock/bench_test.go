//go:build unix

package bedrock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// benchHistory is a typical step of an agent: a system prompt, a user
// prompt, one tool round trip, one tool.
func benchHistory() ([]model.Message, model.Params) {
	h := []model.Message{
		model.Request(model.SystemPrompt("You are a helpful assistant."), model.UserPrompt("What are the top songs of WZPZ and WKRP?")),
		model.Response(model.TextPart("I'll check."),
			model.ToolCallPart("tooluse_a", "top_song", json.RawMessage(`{"sign":"WZPZ"}`))),
		model.Request(model.ToolReturn(tool.Return{ToolCallID: "tooluse_a", Name: "top_song", Content: map[string]any{"song": "Elemental Hotel", "artist": "8 Storey Hike"}})),
	}
	song := tool.Definition{Name: "top_song", Description: "Get the most popular song played on a radio station.", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"sign": map[string]any{"type": "string", "description": "The call sign for the radio station"}},
		"required": []any{"sign"}}}
	return h, model.Params{Tools: []tool.Definition{song}}
}

// streamBytes encodes a stream fixture as the binary event stream.
func streamBytes(b *testing.B, name string) []byte {
	var buf bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, ev := range eventsFixture(b, name) {
		if err := enc.Encode(&buf, frame(ev)); err != nil {
			b.Fatal(err)
		}
	}
	return buf.Bytes()
}

// BenchmarkConverse puts the cost of streaming beside a whole response of
// the same message (tool_use_parallel.json, and its events in
// stream_tool_use_parallel.json as binary frames) against the same local
// server: "request" is Request on the JSON (Converse), "stream" Stream on
// the events (ConverseStream) with a handler counting the deltas,
// "streaming-request" Request with Options.Streaming (no deltas), and
// "raw-json" and "raw-stream" a bare POST of the same signed request
// reading the answer undecoded. Each reports cpu-ns/op, the process's CPU
// time per request (the server's included, the same on every side).
func BenchmarkConverse(b *testing.B) {
	history, params := benchHistory()
	ctx := context.Background()
	serve := func(b *testing.B, body []byte, ctype string, streaming bool) (*modeltest.Canned, *bedrock.Model) {
		srv := modeltest.NewCanned(b, ctype, body)
		client := bedrockruntime.New(bedrockruntime.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(srv.URL),
			Credentials:  aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(testAccessKey, testSecret, "")),
			HTTPClient:   srv.Client(),
			Retryer:      aws.NopRetryer{},
		})
		return srv, must(bedrock.New(client, testModel, bedrock.Options{Streaming: streaming}))
	}
	jsonBody, streamBody := fixture(b, "tool_use_parallel.json"), streamBytes(b, "stream_tool_use_parallel.json")
	const streamType = "application/vnd.amazon.eventstream"
	b.Run("request", func(b *testing.B) {
		_, m := serve(b, jsonBody, "application/json", false)
		modeltest.Measure(b, func() {
			if _, err := m.Request(ctx, history, params); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("stream", func(b *testing.B) {
		_, m := serve(b, streamBody, streamType, false)
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
		_, m := serve(b, streamBody, streamType, true)
		modeltest.Measure(b, func() {
			if _, err := m.Request(ctx, history, params); err != nil {
				b.Fatal(err)
			}
		})
	})
	// raw posts the signed request the model sent again, its answer read
	// undecoded.
	raw := func(b *testing.B, body []byte, ctype string, streaming bool) {
		srv, m := serve(b, body, ctype, streaming)
		if _, err := m.Request(ctx, history, params); err != nil {
			b.Fatal(err)
		}
		modeltest.Measure(b, srv.Repost(b, ctx))
	}
	b.Run("raw-json", func(b *testing.B) { raw(b, jsonBody, "application/json", false) })
	b.Run("raw-stream", func(b *testing.B) { raw(b, streamBody, streamType, true) })
}
