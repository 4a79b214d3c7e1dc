package anthropic_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// Stream always streams, reports text as it arrives, and returns what
// Request returns for the same response unstreamed.
func TestStreamText(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_text.sse"}, reply{file: "text.json"})
	m := f.model(0) // no Options.Streaming: Stream streams anyway
	var got []model.Delta
	msg, err := m.Stream(context.Background(), ask("Hello"), model.Params{}, modeltest.Collect(&got))
	if err != nil {
		t.Fatal(err)
	}
	if f.Body(0)["stream"] != true {
		t.Fatalf("stream = %v", f.Body(0)["stream"])
	}
	want := `{"kind":"text","text":"Hi! "}
{"kind":"text","text":"My name is "}
{"kind":"text","text":"Claude."}
`
	if g := modeltest.DeltaLines(t, got); g != want {
		t.Fatalf("deltas\n%s\nwant\n%s", g, want)
	}
	plain, err := m.Request(context.Background(), ask("Hello"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Body(1)["stream"] != nil {
		t.Fatalf("Request streamed: %v", f.Body(1)["stream"])
	}
	if !reflect.DeepEqual(msg, plain) {
		t.Fatalf("Stream = %+v\nRequest = %+v", msg, plain)
	}
}

func TestStreamParallelToolCalls(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_tool_use_parallel.sse"}, reply{file: "tool_use_parallel.json"})
	m := f.model(0)
	var got []model.Delta
	msg, err := m.Stream(context.Background(), ask("Weather and time?"), model.Params{}, modeltest.Collect(&got))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"text","text":"I'll check the weather "}
{"kind":"text","text":"and the time in San Francisco."}
{"kind":"tool_call_start","tool_call":{"id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","arguments":null}}
{"kind":"tool_call_arguments","text":"{\"location\": \"San Fra"}
{"kind":"tool_call_arguments","text":"ncisco, CA\"}"}
{"kind":"tool_call_done","tool_call":{"id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","arguments":{"location":"San Francisco, CA"}}}
{"kind":"tool_call_start","index":1,"tool_call":{"id":"toolu_01B19q90qw90lq917835lq8","name":"get_time","arguments":null}}
{"kind":"tool_call_arguments","index":1,"text":"{\"timezone\": "}
{"kind":"tool_call_arguments","index":1,"text":"\"America/Los_Angeles\"}"}
{"kind":"tool_call_done","index":1,"tool_call":{"id":"toolu_01B19q90qw90lq917835lq8","name":"get_time","arguments":{"timezone":"America/Los_Angeles"}}}
`
	if g := modeltest.DeltaLines(t, got); g != want {
		t.Fatalf("deltas\n%s\nwant\n%s", g, want)
	}
	plain, err := m.Request(context.Background(), ask("Weather and time?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(msg, plain) {
		t.Fatalf("Stream = %+v\nRequest = %+v", msg, plain)
	}
	// Every done call is the response's call of that index.
	calls := msg.ToolCalls()
	for _, d := range got {
		if d.Kind == model.DeltaToolCallDone && (calls[d.Index].ID != d.Call.ID || string(calls[d.Index].Arguments) != string(d.Call.Arguments)) {
			t.Fatalf("done %d = %+v, response call %+v", d.Index, d.Call, calls[d.Index])
		}
	}
}

// Thinking is reported as it streams; a nil handler is Request (here
// streamed through WithStreaming).
func TestStreamThinkingAndNilHandler(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_tool_use.sse"}, reply{sse: true, file: "stream_tool_use.sse"})
	m := f.modelWith(0, anthropic.Options{Streaming: true})
	var got []model.Delta
	msg, err := m.Stream(context.Background(), ask("Weather in SF?"), model.Params{}, modeltest.Collect(&got))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || got[0] != (model.Delta{Kind: model.DeltaThinking, Text: "I need the weather, "}) ||
		got[1] != (model.Delta{Kind: model.DeltaThinking, Text: "so I call get_weather."}) {
		t.Fatalf("deltas = %s", modeltest.DeltaLines(t, got))
	}
	plain, err := m.Stream(context.Background(), ask("Weather in SF?"), model.Params{}, nil)
	if err != nil || !reflect.DeepEqual(msg, plain) {
		t.Fatalf("nil handler = %+v, %v\nwant %+v", plain, err, msg)
	}
}

// A call is reported done as soon as its tool_use block stops, while the
// server still holds back the rest of the response: the agent can start
// it before the response ends.
func TestStreamCallDoneBeforeResponseEnds(t *testing.T) {
	body := string(fixture(t, "stream_tool_use_parallel.sse"))
	stop := `data: {"type":"content_block_stop","index":1}` + "\n\n"
	cut := strings.Index(body, stop) + len(stop)
	release, timedOut := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body[:cut]))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Second):
			close(timedOut) // the test fails below rather than hanging
		}
		_, _ = w.Write([]byte(body[cut:]))
	}))
	defer srv.Close()
	retries := 0
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: &retries}}))
	var got []model.Delta
	released := false
	msg, err := m.Stream(context.Background(), ask("Weather and time?"), model.Params{}, func(d model.Delta) {
		got = append(got, model.Delta{Kind: d.Kind, Index: d.Index})
		if d.Kind == model.DeltaToolCallDone && d.Index == 0 {
			if d.Call.ID != "toolu_01A09q90qw90lq917835lq9" || string(d.Call.Arguments) != `{"location": "San Francisco, CA"}` {
				t.Errorf("done 0 = %+v (%s)", d.Call, d.Call.Arguments)
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

// A stream that breaks after a call was reported fails as Request does.
func TestStreamDisconnectAfterDeltas(t *testing.T) {
	f := newFake(t, reply{sse: true, file: "stream_cut.sse", cut: true})
	var got []model.Delta
	_, err := f.model(0).Stream(context.Background(), ask("Weather?"), model.Params{}, modeltest.Collect(&got))
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.Code != "stream_error" || len(got) == 0 {
		t.Fatalf("provider error = %+v after %d deltas", *pe, len(got))
	}
}

// Retries happen before the first byte only, and report nothing.
func TestStreamRetriesBeforeTheStream(t *testing.T) {
	f := newFake(t,
		reply{status: 529, header: map[string]string{"retry-after-ms": "1"}, file: "error_529.json"},
		reply{sse: true, file: "stream_text.sse"})
	var got []model.Delta
	msg, err := f.model(2).Stream(context.Background(), ask("Hello"), model.Params{}, modeltest.Collect(&got))
	if err != nil || msg.Text() != "Hi! My name is Claude." || len(got) != 3 || f.Requests() != 2 {
		t.Fatalf("Stream = %+v, %v; %d deltas after %d requests", msg, err, len(got), f.Requests())
	}
}
