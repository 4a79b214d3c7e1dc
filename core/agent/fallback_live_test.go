package agent_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agent/otel"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// unavailable is a Chat Completions server that answers 503, counting.
func unavailable(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"message":"overloaded","type":"server_error"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func chatModel(t *testing.T, name, url string) model.Model {
	t.Helper()
	zero := 0
	m, err := openai.NewChatFromConfig(name, openai.Options{Config: openai.Config{BaseURL: url, APIKey: "sk-test", MaxRetries: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The primary answers 503; the secondary streams its first delta and
// then holds the rest of its answer until the run's observer has seen
// that delta. The model_fallback event must have reached the observer by
// then: it is emitted as the primary fails, not once the request ends
// (which it cannot before the observer saw the delta). It is emitted
// once, and its span is a failed child of the request's chat span.
func TestFallbackEventPrecedesTheNextModelsDeltas(t *testing.T) {
	primary, _ := unavailable(t)
	sawDelta := make(chan struct{})
	secondary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		send := func(s string) { _, _ = w.Write([]byte(s)); fl.Flush() }
		send(chunk(`{"role":"assistant","content":"Hel"}`, ""))
		select {
		case <-sawDelta:
		case <-time.After(10 * time.Second):
			return // the test fails: the first delta never reached the observer
		case <-r.Context().Done():
			return
		}
		send(chunk(`{"content":"lo"}`, ""))
		send(chunk(`{}`, "stop"))
		send("data: [DONE]\n\n")
	}))
	defer secondary.Close()

	f, err := model.NewFallback([]model.Model{chatModel(t, "gpt-4.1", primary.URL), chatModel(t, "gpt-4o-mini", secondary.URL)}, model.FallbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sr, tp := recorder()
	var kinds []string
	var fallbackFirst bool
	res, err := agent.NewBuilder(f).MustBuild().Run(ctx, "hi", agent.WithDeltas(), otel.WithTracer(tp), agent.WithEvents(func(ev agent.Event) {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.EventTextDelta && !slices.Contains(kinds[:len(kinds)-1], agent.EventTextDelta) {
			fallbackFirst = slices.Contains(kinds, agent.EventModelFallback)
			close(sawDelta)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "Hello" {
		t.Fatalf("output %q; events %v", res.Output, kinds)
	}
	if !fallbackFirst {
		t.Fatalf("model_fallback came after the secondary's first delta: %v", kinds)
	}
	n := 0
	for _, k := range kinds {
		if k == agent.EventModelFallback {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d model_fallback events: %v", n, kinds)
	}
	if last := res.Messages[len(res.Messages)-1]; len(last.Attempts) != 1 || last.Attempts[0].StatusCode != 503 || res.Usage.Requests != 2 {
		t.Fatalf("attempts %+v, usage %+v", last.Attempts, res.Usage)
	}
	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		spans[s.Name()] = s
	}
	failed, ok := spans["chat gpt-4.1"]
	if !ok || failed.Status().Code != codes.Error {
		t.Fatalf("no failed attempt span: %v", spans)
	}
	var parent sdktrace.ReadOnlySpan
	for name, s := range spans {
		if strings.HasPrefix(name, "chat") && s.SpanContext().SpanID() == failed.Parent().SpanID() {
			parent = s
		}
	}
	if parent == nil || parent.Status().Code == codes.Error {
		t.Fatalf("the failed attempt's parent is not the request's chat span: %v", parent)
	}
}

// When every model fails, each attempt is an event, once, before
// run_failed, and the run's error lists them.
func TestFallbackAllFailEventsBeforeRunFailed(t *testing.T) {
	first, _ := unavailable(t)
	second, _ := unavailable(t)
	f, err := model.NewFallback([]model.Model{chatModel(t, "gpt-4.1", first.URL), chatModel(t, "gpt-4o-mini", second.URL)}, model.FallbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]agent.RunOption{nil, {agent.WithDeltas()}} {
		var got []string
		opts = append(opts, agent.WithEvents(func(ev agent.Event) {
			switch ev.Kind {
			case agent.EventModelFallback:
				got = append(got, ev.Attempt.Model)
			case agent.EventRunFailed:
				got = append(got, ev.Kind)
			}
		}))
		_, err := agent.NewBuilder(f).MustBuild().Run(context.Background(), "hi", opts...)
		var fe *model.FallbackError
		if !errors.As(err, &fe) || len(fe.Attempts) != 2 {
			t.Fatalf("err = %v", err)
		}
		if want := "gpt-4.1 gpt-4o-mini run_failed"; strings.Join(got, " ") != want {
			t.Fatalf("events %v, want %s", got, want)
		}
	}
}
