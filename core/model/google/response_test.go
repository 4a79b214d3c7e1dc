package google_test

import (
	"context"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func TestTextResponse(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	got, err := f.model(0).Request(context.Background(), ask("Capital of France?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "Paris is the capital of France." || got.FinishReason != model.FinishStop || got.Provider != "google" ||
		got.ModelName != "gemini-2.5-flash" || got.ResponseID != "resp-text-1" {
		t.Fatalf("response = %+v", got)
	}
	if *got.Usage != (model.Usage{Requests: 1, InputTokens: 12, OutputTokens: 7}) {
		t.Fatalf("usage = %+v", *got.Usage)
	}
	if h := f.Request(0).Header; h.Get("X-Goog-Api-Key") != testKey {
		t.Fatalf("key header = %q", h.Get("X-Goog-Api-Key"))
	}
	if u := f.Request(0).URL; strings.Contains(u, testKey) || !strings.HasPrefix(u, "/v1beta/models/gemini-2.5-flash:generateContent") {
		t.Fatalf("url = %s", u)
	}
	body := f.Body(0)
	if jsonOf(t, body["contents"]) != `[{"parts":[{"text":"Capital of France?"}],"role":"user"}]` {
		t.Fatalf("contents = %s", jsonOf(t, body["contents"]))
	}
}

// Gemini sends the calls of a response without ids: each gets one made
// from the response id and its position; the signature on the first call
// is kept as a thinking part just before it.
func TestParallelCallsGetStableIDs(t *testing.T) {
	f := newFake(t, reply{file: "function_calls_parallel.json"}, reply{file: "function_calls_parallel.json"})
	got, err := f.model(0).Request(context.Background(), ask("Weather?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	calls := got.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "gemini-call-resp-calls-1-0" || calls[1].ID != "gemini-call-resp-calls-1-1" ||
		string(calls[0].Arguments) != `{"city":"Paris"}` || string(calls[1].Arguments) != `{"city":"London"}` {
		t.Fatalf("calls = %+v", calls)
	}
	if got.FinishReason != model.FinishToolCalls {
		t.Fatalf("finish = %q", got.FinishReason)
	}
	if p := got.Parts[0]; p.Kind != model.KindThinking || p.Text != "" || p.Thinking.Signature != "c2lnLWNhbGwtMQ==" || p.Thinking.Provider != "google" {
		t.Fatalf("first part = %+v", p)
	}
	if *got.Usage != (model.Usage{Requests: 1, InputTokens: 40, OutputTokens: 50, ReasoningTokens: 30}) {
		t.Fatalf("usage = %+v", *got.Usage)
	}
	again, err := f.model(0).Request(context.Background(), ask("Weather?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if again.ToolCalls()[0].ID != calls[0].ID {
		t.Fatalf("ids differ for the same response: %s, %s", again.ToolCalls()[0].ID, calls[0].ID)
	}
}

func TestCallIDKept(t *testing.T) {
	f := newFake(t, reply{file: "function_call_with_id.json"})
	got, err := f.model(0).Request(context.Background(), ask("Weather?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if calls := got.ToolCalls(); len(calls) != 1 || calls[0].ID != "fc-123" {
		t.Fatalf("calls = %+v", calls)
	}
}

func TestThinkingAndCachedUsage(t *testing.T) {
	f := newFake(t, reply{file: "thinking.json"})
	got, err := f.model(0).Request(context.Background(), ask("Number?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Parts) != 3 {
		t.Fatalf("parts = %+v", got.Parts)
	}
	th, sig, text := got.Parts[0], got.Parts[1], got.Parts[2]
	if th.Kind != model.KindThinking || !strings.HasPrefix(th.Text, "**Weighing") || th.Thinking.Signature != "" {
		t.Fatalf("thinking = %+v", th)
	}
	if sig.Kind != model.KindThinking || sig.Text != "" || sig.Thinking.Signature != "c2lnLXRleHQ=" {
		t.Fatalf("signature = %+v", sig)
	}
	if text.Kind != model.KindText || text.Text != "42" {
		t.Fatalf("text = %+v", text)
	}
	if *got.Usage != (model.Usage{Requests: 1, InputTokens: 100, OutputTokens: 52, CacheReadTokens: 64, ReasoningTokens: 50}) {
		t.Fatalf("usage = %+v", *got.Usage)
	}
	if got.ModelName != "gemini-2.5-pro" {
		t.Fatalf("model = %q", got.ModelName)
	}
}

func TestFinishReasons(t *testing.T) {
	for _, c := range []struct {
		file, finish, refusal string
	}{
		{"safety.json", model.FinishContentFilter, "the response was blocked (SAFETY)"},
		{"blocked_prompt.json", model.FinishContentFilter, "the prompt was blocked (PROHIBITED_CONTENT)"},
		{"max_tokens.json", model.FinishLength, ""},
	} {
		f := newFake(t, reply{file: c.file})
		got, err := f.model(0).Request(context.Background(), ask("Hi"), model.Params{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got.FinishReason != c.finish {
			t.Errorf("%s: finish = %q", c.file, got.FinishReason)
		}
		if c.refusal != "" && (len(got.Parts) != 1 || got.Parts[0].Kind != model.KindRefusal || got.Parts[0].Text != c.refusal) {
			t.Errorf("%s: parts = %+v", c.file, got.Parts)
		}
	}
}

func TestUnsupportedResponsePartFails(t *testing.T) {
	f := newFake(t, reply{body: `{"candidates":[{"content":{"role":"model","parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}}]},"finishReason":"STOP"}]}`})
	_, err := f.model(0).Request(context.Background(), ask("Hi"), model.Params{})
	if err == nil || !strings.Contains(err.Error(), "executableCode") {
		t.Fatalf("err = %v", err)
	}
}
