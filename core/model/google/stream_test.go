package google_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// Stream always streams, reports text as it arrives, and returns what
// Request returns for the same response unstreamed.
func TestStreamText(t *testing.T) {
	f := newFake(t, reply{file: "stream_text.sse"}, reply{file: "text.json"})
	m := f.model(0) // no Options.Streaming: Stream streams anyway
	var got []model.Delta
	msg, err := m.Stream(context.Background(), ask("Capital of France?"), model.Params{}, modeltest.Collect(&got))
	if err != nil {
		t.Fatal(err)
	}
	if u := f.Request(0).URL; !strings.Contains(u, ":streamGenerateContent?alt=sse") {
		t.Fatalf("url = %s", u)
	}
	want := `{"kind":"text","text":"Paris is"}
{"kind":"text","text":" the capital"}
{"kind":"text","text":" of France."}
`
	if g := modeltest.DeltaLines(t, got); g != want {
		t.Fatalf("deltas\n%s\nwant\n%s", g, want)
	}
	plain, err := m.Request(context.Background(), ask("Capital of France?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if u := f.Request(1).URL; !strings.Contains(u, ":generateContent") {
		t.Fatalf("Request streamed: %s", u)
	}
	plain.ResponseID = msg.ResponseID
	if !reflect.DeepEqual(msg, plain) {
		t.Fatalf("Stream = %+v\nRequest = %+v", msg, plain)
	}
}

// Thoughts, text and whole function calls: each call is reported as its
// start, its arguments and its done at once; the message is the one the
// whole response gives.
func TestStreamThinkingAndParallelCalls(t *testing.T) {
	f := newFake(t, reply{file: "stream_calls.sse"})
	var got []model.Delta
	msg, err := f.modelWith(0, google.Options{Streaming: true}).Stream(context.Background(), ask("Weather?"), model.Params{}, modeltest.Collect(&got))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"thinking","text":"Comparing both cities."}
{"kind":"text","text":"Let me check."}
{"kind":"tool_call_start","tool_call":{"id":"gemini-call-resp-stream-2-0","name":"get_weather","arguments":null}}
{"kind":"tool_call_arguments","text":"{\"city\":\"Paris\"}"}
{"kind":"tool_call_done","tool_call":{"id":"gemini-call-resp-stream-2-0","name":"get_weather","arguments":{"city":"Paris"}}}
{"kind":"tool_call_start","index":1,"tool_call":{"id":"gemini-call-resp-stream-2-1","name":"get_weather","arguments":null}}
{"kind":"tool_call_arguments","index":1,"text":"{\"city\":\"London\"}"}
{"kind":"tool_call_done","index":1,"tool_call":{"id":"gemini-call-resp-stream-2-1","name":"get_weather","arguments":{"city":"London"}}}
`
	if g := modeltest.DeltaLines(t, got); g != want {
		t.Fatalf("deltas\n%s\nwant\n%s", g, want)
	}
	var kinds []string
	for _, p := range msg.Parts {
		kinds = append(kinds, p.Kind)
	}
	if strings.Join(kinds, ",") != "thinking,text,thinking,tool_call,tool_call" || msg.FinishReason != model.FinishToolCalls {
		t.Fatalf("parts %v, finish %q", kinds, msg.FinishReason)
	}
	if *msg.Usage != (model.Usage{Requests: 1, InputTokens: 40, OutputTokens: 50, ReasoningTokens: 30}) {
		t.Fatalf("usage = %+v", *msg.Usage)
	}
}

// Request with Options.Streaming streams and reports nothing.
func TestStreamingRequest(t *testing.T) {
	f := newFake(t, reply{file: "stream_text.sse"})
	msg, err := f.modelWith(0, google.Options{Streaming: true}).Request(context.Background(), ask("Hi"), model.Params{})
	if err != nil || msg.Text() != "Paris is the capital of France." {
		t.Fatalf("Request = %+v, %v", msg, err)
	}
}

// A call is reported done while the server still holds back the rest of
// the response: the agent can start it before the response ends.
func TestStreamCallDoneBeforeResponseEnds(t *testing.T) {
	body := string(fixture(t, "stream_calls.sse"))
	first := `{"city": "London"}}}],"role": "model"}`
	cut := strings.Index(body, first)
	if cut < 0 {
		t.Fatal("fixture changed")
	}
	// Split the calls chunk in two chunks: Paris first, London later.
	parts := strings.SplitN(body, "\r\n\r\n", 3)
	calls := parts[2]
	paris := strings.Replace(calls, `,{"functionCall": {"name": "get_weather","args": {"city": "London"}}}`, "", 1)
	paris = strings.Replace(paris, `"finishReason": "STOP",`, "", 1)
	london := strings.Replace(calls, `{"functionCall": {"name": "get_weather","args": {"city": "Paris"}},"thoughtSignature": "c2lnLWNhbGwtMQ=="},`, "", 1)
	head := parts[0] + "\r\n\r\n" + parts[1] + "\r\n\r\n" + strings.TrimRight(paris, "\r\n") + "\r\n\r\n"
	release, timedOut := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(head))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Second):
			close(timedOut)
		}
		_, _ = w.Write([]byte(london))
	}))
	defer srv.Close()
	retries := 0
	m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{APIKey: testKey, BaseURL: srv.URL, MaxRetries: &retries}}))
	released := false
	msg, err := m.Stream(context.Background(), ask("Weather?"), model.Params{}, func(d model.Delta) {
		if d.Kind == model.DeltaToolCallDone && d.Index == 0 {
			if string(d.Call.Arguments) != `{"city":"Paris"}` {
				t.Errorf("done 0 = %+v", d.Call)
			}
			released = true
			close(release)
		}
	})
	select {
	case <-timedOut:
		t.Fatal("call 0 was not reported done before the rest of the response")
	default:
	}
	if err != nil || !released || len(msg.ToolCalls()) != 2 {
		t.Fatalf("Stream = %+v, %v (released %v)", msg, err, released)
	}
}

// A stream that breaks after deltas, or ends without a finish reason,
// fails with stream_error.
func TestStreamBreaks(t *testing.T) {
	for _, rp := range []reply{{file: "stream_cut.sse", cut: true}, {file: "stream_cut.sse"}} {
		f := newFake(t, rp)
		var got []model.Delta
		_, err := f.model(0).Stream(context.Background(), ask("Hi"), model.Params{}, modeltest.Collect(&got))
		pe := modeltest.ProviderError(t, err, testKey)
		if pe.Code != "stream_error" || len(got) == 0 {
			t.Fatalf("cut=%v: provider error = %+v after %d deltas", rp.cut, *pe, len(got))
		}
	}
}

// An error chunk inside a stream keeps its status and code.
func TestStreamErrorChunk(t *testing.T) {
	f := newFake(t, reply{file: "stream_error.sse"})
	_, err := f.model(0).Stream(context.Background(), ask("Hi"), model.Params{}, func(model.Delta) {})
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.StatusCode != 503 || pe.Code != "UNAVAILABLE" || !strings.Contains(pe.Message, "overloaded") {
		t.Fatalf("provider error = %+v", *pe)
	}
}

// Retries happen before the first byte only, and report nothing.
func TestStreamRetriesBeforeTheStream(t *testing.T) {
	f := newFake(t,
		reply{status: 503, header: map[string]string{"retry-after-ms": "1"}, file: "error_503.json"},
		reply{file: "stream_text.sse"})
	var got []model.Delta
	msg, err := f.model(2).Stream(context.Background(), ask("Hello"), model.Params{}, modeltest.Collect(&got))
	if err != nil || msg.Text() != "Paris is the capital of France." || len(got) != 3 || f.Requests() != 2 {
		t.Fatalf("Stream = %+v, %v; %d deltas after %d requests", msg, err, len(got), f.Requests())
	}
}
