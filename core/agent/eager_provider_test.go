package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agent/otel"
	"github.com/starweaver-go/starweaver/core/model/openai"
	"github.com/starweaver-go/starweaver/core/tool"
)

// chunk is one Chat Completions stream chunk with a delta.
func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, f)
}

// A local OpenAI-compatible server streams a response of two calls and
// pauses after the first call's arguments (the second call has begun, so
// the first is complete) until the first tool has started: the run ends
// only if the agent started that tool while the response was streaming.
// A model built to stream dispatches eagerly; so does one built without
// streaming when the run asks for deltas (a live run streams the response
// anyway, and a streamed response is a streamed response).
func TestEagerDispatchThroughAStreamingProvider(t *testing.T) {
	for _, c := range []struct {
		name      string
		streaming bool
		deltas    bool
	}{{"stream=true", true, false}, {"stream=true+deltas", true, true}, {"stream=false+deltas", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			var opts []agent.RunOption
			if c.deltas {
				opts = append(opts, agent.WithDeltas())
			}
			eagerThroughProvider(t, c.streaming, opts...)
		})
	}
}

func eagerThroughProvider(t *testing.T, streaming bool, opts ...agent.RunOption) {
	firstStarted := make(chan struct{})
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Stream bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !body.Stream {
			http.Error(w, "want a streamed request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		send := func(s string) { _, _ = w.Write([]byte(s)); fl.Flush() }
		if requests.Add(1) > 1 {
			send(chunk(`{"role":"assistant","content":"both done"}`, ""))
			send(chunk(`{}`, "stop"))
			send("data: [DONE]\n\n")
			return
		}
		send(chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"first","arguments":""}}]}`, ""))
		send(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"n\":1}"}}]}`, ""))
		send(chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"second","arguments":""}}]}`, ""))
		select {
		case <-firstStarted:
		case <-time.After(10 * time.Second):
			return // the test fails: the first tool never started mid-response
		case <-r.Context().Done():
			return
		}
		send(chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"n\":2}"}}]}`, ""))
		send(chunk(`{}`, "tool_calls"))
		send("data: [DONE]\n\n")
	}))
	defer srv.Close()

	var bodyDone atomic.Bool
	first := tool.New("first", "", map[string]any{"type": "object"}, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if bodyDone.Load() {
			return tool.Result{}, fmt.Errorf("started after the response ended")
		}
		// A span the tool opens nests under its call's, opened by the call
		// itself since its tool_call event comes after the response.
		_, inner := trace.SpanFromContext(ctx).TracerProvider().Tracer("tool").Start(ctx, "inside first")
		inner.End()
		close(firstStarted)
		return tool.Text("one"), nil
	})
	second := tool.New("second", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("two"), nil
	})
	m, err := openai.NewChatFromConfig("gpt-4o-mini", openai.Options{Config: openai.Config{BaseURL: srv.URL}, Streaming: streaming})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.NewBuilder(m).Tool(first, second).MustBuild()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var order []string
	sr, tp := recorder()
	opts = append(opts, otel.WithTracer(tp), agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventModelResponse {
			bodyDone.Store(true)
		}
		if ev.Kind == agent.EventToolReturn {
			order = append(order, ev.Return.ToolCallID+"="+fmt.Sprint(ev.Return.Content))
		}
	}))
	res, err := a.Run(ctx, "go", opts...)
	if err != nil || res.Output != "both done" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if strings.Join(order, ",") != "call_a=one,call_b=two" {
		t.Fatalf("returns in model order: %v", order)
	}
	spans := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		spans[s.Name()] = append(spans[s.Name()], s)
	}
	if len(spans["execute_tool first"]) != 1 || len(spans["inside first"]) != 1 {
		t.Fatalf("spans %v", names(sr.Ended()))
	}
	call, inner := spans["execute_tool first"][0], spans["inside first"][0]
	if inner.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Fatal("the tool's span is not a child of its execute_tool span")
	}
	if chat := spans["chat gpt-4o-mini"][0]; !call.StartTime().Before(chat.EndTime()) {
		t.Fatal("the call's span opened after the response ended")
	}
}

func recorder() (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	sr := tracetest.NewSpanRecorder()
	return sr, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}
