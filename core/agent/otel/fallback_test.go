package otel_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agent/otel"
	"github.com/starweaver-go/starweaver/core/model"
)

// down is a named model whose server answers 503.
type down struct{ name string }

func (d down) Name() string { return d.name }

func (d down) Request(context.Context, []model.Message, model.Params) (model.Message, error) {
	return model.Message{}, &model.ProviderError{Provider: "openai", StatusCode: 503, Code: "overloaded", Message: "try later"}
}

func fallbackAgent(t *testing.T, models ...model.Model) *agent.Agent {
	t.Helper()
	f, err := model.NewFallback(models, model.FallbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return agent.NewBuilder(f).MustBuild()
}

// A fallback shows in the run's events (model_fallback before the
// model_response of the model that answered), its usage (the failed
// request counts) and its spans (a failed child span of the chat span,
// which is the answering model's).
func TestFallbackEventsUsageAndSpans(t *testing.T) {
	sr, tp := recorder()
	answer := text("hi")
	answer.ModelName, answer.Provider = "claude-sonnet-4-5", "anthropic"
	answer.Usage = &model.Usage{Requests: 1, InputTokens: 7, OutputTokens: 2}
	a := fallbackAgent(t, down{"gpt-4.1"}, model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return answer, nil
	}))
	var kinds []string
	var attempt *model.Attempt
	res := mustRun(t, a, "hello", otel.WithTracer(tp), agent.WithEvents(func(ev agent.Event) {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.EventModelFallback {
			attempt = ev.Attempt
		}
	}))
	if got := strings.Join(kinds, " "); !strings.Contains(got, "model_request model_fallback model_response") {
		t.Fatalf("events: %s", got)
	}
	if attempt == nil || attempt.Model != "gpt-4.1" || attempt.StatusCode != 503 || !attempt.Sent {
		t.Fatalf("attempt %+v", attempt)
	}
	if res.Usage.Requests != 2 || res.Usage.InputTokens != 7 {
		t.Errorf("usage %+v", res.Usage)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Provider != "anthropic" || len(last.Attempts) != 1 {
		t.Errorf("response %+v", last)
	}

	var chat, failed sdktrace.ReadOnlySpan
	for _, s := range sr.Ended() {
		switch s.Name() {
		case "chat claude-sonnet-4-5":
			chat = s
		case "chat gpt-4.1":
			failed = s
		}
	}
	if chat == nil || failed == nil {
		t.Fatalf("spans: %v", spanNames(sr.Ended()))
	}
	if failed.Parent().SpanID() != chat.SpanContext().SpanID() || failed.Status().Code != codes.Error {
		t.Errorf("failed attempt span: parent %v, status %v", failed.Parent().SpanID(), failed.Status())
	}
	if at := attrs(failed); at["error.type"].AsString() != "503" || at["gen_ai.provider.name"].AsString() != "openai" {
		t.Errorf("failed attempt attributes %v", at)
	}
	if chat.Status().Code == codes.Error || attrs(chat)["gen_ai.provider.name"].AsString() != "anthropic" {
		t.Errorf("chat span %v %v", chat.Status(), attrs(chat))
	}
}

// When every model fails, the run fails with every attempt named, each
// reported as a model_fallback event and a failed span.
func TestFallbackAllFailEventsAndSpans(t *testing.T) {
	sr, tp := recorder()
	a := fallbackAgent(t, down{"primary"}, down{"secondary"})
	var fallbacks int
	_, err := a.Run(context.Background(), "hello", otel.WithTracer(tp), agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventModelFallback {
			fallbacks++
		}
	}))
	var fe *model.FallbackError
	if err == nil || !strings.Contains(err.Error(), "primary") || !strings.Contains(err.Error(), "secondary") || !errorsAs(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	if fallbacks != 2 {
		t.Errorf("%d model_fallback events", fallbacks)
	}
	n := 0
	for _, s := range sr.Ended() {
		if (s.Name() == "chat primary" || s.Name() == "chat secondary") && s.Status().Code == codes.Error {
			n++
		}
	}
	if n != 2 {
		t.Errorf("failed attempt spans: %d of %v", n, spanNames(sr.Ended()))
	}
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
