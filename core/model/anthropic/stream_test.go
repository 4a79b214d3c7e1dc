package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func TestStreamingAssemblesResponse(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_tool_use.sse"})
	got, err := f.modelWith(0, anthropic.Options{Streaming: true}).Request(context.Background(), ask("Weather in SF?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Body(0)["stream"] != true {
		t.Fatalf("stream = %v", f.Body(0)["stream"])
	}
	if len(got.Parts) != 3 {
		t.Fatalf("parts = %+v", got.Parts)
	}
	th := got.Parts[0]
	if th.Kind != model.KindThinking || th.Text != "I need the weather, so I call get_weather." ||
		th.Thinking.Signature != "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" {
		t.Fatalf("thinking = %+v %+v", th, th.Thinking)
	}
	if got.Parts[1].Text != "Okay, let's check the weather for San Francisco, CA:" {
		t.Fatalf("text = %q", got.Parts[1].Text)
	}
	calls := got.ToolCalls()
	if len(calls) != 1 || calls[0].ID != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" ||
		string(calls[0].Arguments) != `{"location": "San Francisco, CA", "unit": "fahrenheit"}` {
		t.Fatalf("calls = %+v (%s)", calls, calls[0].Arguments)
	}
	want := model.Usage{Requests: 1, InputTokens: 572, OutputTokens: 89, CacheReadTokens: 100}
	if *got.Usage != want || got.FinishReason != model.FinishToolCalls || got.ResponseID != "msg_014p7gG3wDgGV9EUtLvnow3U" {
		t.Fatalf("usage = %+v, finish = %q, id = %q", *got.Usage, got.FinishReason, got.ResponseID)
	}
}

func TestStreamDisconnect(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_cut.sse", cut: true})
	_, err := f.modelWith(0, anthropic.Options{Streaming: true}).Request(context.Background(), ask("Weather?"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.Code != "stream_error" || !strings.Contains(pe.Message, "stream broke before message_stop") {
		t.Fatalf("provider error = %+v", *pe)
	}
}

// TestStreamEndsEarly: a stream closed cleanly before message_stop is not a
// response.
func TestStreamEndsEarly(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_cut.sse"})
	_, err := f.modelWith(0, anthropic.Options{Streaming: true}).Request(context.Background(), ask("Weather?"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.Code != "stream_error" || !strings.Contains(pe.Message, "before message_stop") {
		t.Fatalf("provider error = %+v", *pe)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_error.sse"})
	_, err := f.modelWith(0, anthropic.Options{Streaming: true}).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if *pe != (model.ProviderError{Provider: "anthropic", StatusCode: 529, Code: "overloaded_error", Message: "Overloaded"}) {
		t.Fatalf("provider error = %+v", *pe)
	}
}

// TestStreamingRetriesBeforeTheStream: the SDK retries a stream whose
// response is a 529, like any request.
func TestStreamingRetriesBeforeTheStream(t *testing.T) {
	f := newFake(t,
		reply{status: 529, header: map[string]string{"retry-after-ms": "1"}, file: "error_529.json"},
		reply{sse: true, file: "stream_tool_use.sse"})
	got, err := f.modelWith(2, anthropic.Options{Streaming: true}).Request(context.Background(), ask("Weather in SF?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls()) != 1 || f.Requests() != 2 {
		t.Fatalf("calls = %+v after %d requests", got.ToolCalls(), f.Requests())
	}
}

func TestStreamingUnauthorized(t *testing.T) {
	f := newFake(t, reply{status: 401, file: "error_401.json"})
	_, err := f.modelWith(2, anthropic.Options{Streaming: true}).Request(context.Background(), ask("Hi"), model.Params{})
	if pe := modeltest.ProviderError(t, err, testKey); pe.StatusCode != 401 || pe.Code != "authentication_error" {
		t.Fatalf("provider error = %+v", *pe)
	}
}
