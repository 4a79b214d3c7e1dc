package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// server answers every request with status and the body of a provider's
// fixture file, counting the requests.
func server(t *testing.T, status int, fixture string, sse bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

var noRetries = 0

func chatAt(t *testing.T, url string) model.Model {
	t.Helper()
	m, err := openai.NewChatFromConfig("gpt-4.1", openai.Options{Config: openai.Config{BaseURL: url, APIKey: "sk-test", MaxRetries: &noRetries}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func claudeAt(t *testing.T, url string) model.Model {
	t.Helper()
	m, err := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{BaseURL: url, APIKey: "sk-ant-test", MaxRetries: &noRetries}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func fallback(t *testing.T, o model.FallbackOptions, models ...model.Model) *model.Fallback {
	t.Helper()
	f, err := model.NewFallback(models, o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func hello() []model.Message { return []model.Message{model.Request(model.UserPrompt("Hello"))} }

// A 500 from OpenAI passes the request to Anthropic, which answers; the
// response says so and counts the failed request.
func TestFallbackServerErrorThenAnthropicAnswers(t *testing.T) {
	primary, hits := server(t, 500, filepath.Join("openai", "testdata", "error_500.json"), false)
	secondary, _ := server(t, 200, filepath.Join("anthropic", "testdata", "text.json"), false)
	f := fallback(t, model.FallbackOptions{}, chatAt(t, primary.URL), claudeAt(t, secondary.URL))
	got, err := f.Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Provider != "anthropic" || got.Text() == "" || hits.Load() != 1 {
		t.Fatalf("response %+v, %d OpenAI requests", got, hits.Load())
	}
	if len(got.Attempts) != 1 {
		t.Fatalf("attempts %+v", got.Attempts)
	}
	a := got.Attempts[0]
	if a.Model != "gpt-4.1" || a.Provider != "openai" || a.StatusCode != 500 || !a.Sent || a.Start.IsZero() || a.End.Before(a.Start) {
		t.Errorf("attempt %+v", a)
	}
	if got.Usage == nil || got.Usage.Requests != 2 || got.Usage.InputTokens == 0 {
		t.Errorf("usage %+v", got.Usage)
	}
}

// A 400 or a 401 is the request's or the key's fault: no other model is
// asked, and the error is the model's own.
func TestFallbackClientErrorFailsAtOnce(t *testing.T) {
	for _, c := range []struct {
		status  int
		fixture string
	}{{400, filepath.Join("anthropic", "testdata", "error_400.json")}, {401, filepath.Join("anthropic", "testdata", "error_401.json")}} {
		primary, _ := server(t, c.status, c.fixture, false)
		secondary, hits := server(t, 200, filepath.Join("openai", "testdata", "chat_text.json"), false)
		f := fallback(t, model.FallbackOptions{}, claudeAt(t, primary.URL), chatAt(t, secondary.URL))
		_, err := f.Request(context.Background(), hello(), model.Params{})
		var pe *model.ProviderError
		var fe *model.FallbackError
		if !errors.As(err, &pe) || pe.StatusCode != c.status || errors.As(err, &fe) || hits.Load() != 0 {
			t.Errorf("%d: %v (secondary asked %d times)", c.status, err, hits.Load())
		}
	}
}

// When every model fails, the error lists each attempt and still is a
// model error carrying each provider's.
func TestFallbackAllFail(t *testing.T) {
	primary, _ := server(t, 503, filepath.Join("openai", "testdata", "error_500.json"), false)
	secondary, _ := server(t, 529, filepath.Join("anthropic", "testdata", "error_529.json"), false)
	f := fallback(t, model.FallbackOptions{}, chatAt(t, primary.URL), claudeAt(t, secondary.URL))
	_, err := f.Request(context.Background(), hello(), model.Params{})
	var fe *model.FallbackError
	if !errors.As(err, &fe) || len(fe.Attempts) != 2 || !errors.Is(err, model.ErrModel) {
		t.Fatalf("err = %v", err)
	}
	if fe.Attempts[0].StatusCode != 503 || fe.Attempts[1].StatusCode != 529 || fe.Attempts[1].Provider != "anthropic" {
		t.Errorf("attempts %+v", fe.Attempts)
	}
	if msg := err.Error(); !strings.Contains(msg, "all 2 models failed") || !strings.Contains(msg, "gpt-4.1") || !strings.Contains(msg, "claude-sonnet-4-5") {
		t.Errorf("message %q", msg)
	}
}

// Streamed: a failure before any delta passes on; the deltas come from
// the model that answered only.
func TestFallbackStreams(t *testing.T) {
	primary, _ := server(t, 429, filepath.Join("openai", "testdata", "error_429.json"), false)
	secondary, _ := server(t, 200, filepath.Join("anthropic", "testdata", "stream_text.sse"), true)
	f := fallback(t, model.FallbackOptions{}, chatAt(t, primary.URL), claudeAt(t, secondary.URL))
	var text strings.Builder
	got, err := f.Stream(context.Background(), hello(), model.Params{}, func(d model.Delta) {
		if d.Kind == model.DeltaText {
			text.WriteString(d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Provider != "anthropic" || text.String() != got.Text() || len(got.Attempts) != 1 || got.Attempts[0].StatusCode != 429 {
		t.Fatalf("response %+v, streamed %q", got, text.String())
	}
}

// A model that fails after it reported deltas is not replaced: what went
// out cannot be taken back.
func TestFallbackNoFallbackAfterDeltas(t *testing.T) {
	primary, _ := server(t, 200, filepath.Join("anthropic", "testdata", "stream_cut.sse"), true)
	secondary, hits := server(t, 200, filepath.Join("openai", "testdata", "chat_text.json"), false)
	f := fallback(t, model.FallbackOptions{}, claudeAt(t, primary.URL), chatAt(t, secondary.URL))
	var n int
	_, err := f.Stream(context.Background(), hello(), model.Params{}, func(model.Delta) { n++ })
	if err == nil || n == 0 || hits.Load() != 0 {
		t.Fatalf("err %v, %d deltas, secondary asked %d times", err, n, hits.Load())
	}
}

// failing is a model failing with err, counting its requests.
type failing struct {
	err  error
	hits int
}

func (m *failing) Request(context.Context, []model.Message, model.Params) (model.Message, error) {
	m.hits++
	return model.Message{}, m.err
}

func answering(name string) model.Model {
	return model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.Message{Parts: []model.Part{model.TextPart("hi")}, ModelName: name}, nil
	})
}

// The kinds passed on are the user's; a request's own deadline is a
// timeout, the caller's cancellation never passes on.
func TestFallbackKinds(t *testing.T) {
	on, err := model.FallbackOn("404", model.FallbackTimeout)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		pass bool
	}{
		{&model.ProviderError{Provider: "p", StatusCode: 404}, true},
		{&model.ProviderError{Provider: "p", StatusCode: 500}, false},
		{&model.ProviderError{Provider: "p", Code: "first_byte_timeout"}, true},
		{&model.ProviderError{Provider: "p", StatusCode: 408}, true},
		{&model.ProviderError{Provider: "p", Code: "connection_error"}, false},
		{context.DeadlineExceeded, true},
	} {
		if on(c.err) != c.pass {
			t.Errorf("%v: %v", c.err, !c.pass)
		}
	}
	def, _ := model.FallbackOn(model.DefaultFallbackKinds()...)
	for _, err := range []error{
		&model.ProviderError{StatusCode: 503}, &model.ProviderError{StatusCode: 429}, &model.ProviderError{Code: "connection_error"},
		&model.ProviderError{Code: "idle_timeout"}, &model.ProviderError{Code: "stream_incomplete"},
	} {
		if !def(err) {
			t.Errorf("default does not pass on %v", err)
		}
	}
	for _, err := range []error{&model.ProviderError{StatusCode: 400}, &model.ProviderError{StatusCode: 401}, &model.ProviderError{Code: "missing_api_key"}, errors.New("boom")} {
		if def(err) {
			t.Errorf("default passes on %v", err)
		}
	}
	if _, err := model.FallbackOn("5xx"); err == nil {
		t.Error("unknown kind accepted")
	}

	// The caller's cancellation stops the fallback.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	first := &failing{err: context.Canceled}
	f := fallback(t, model.FallbackOptions{On: func(error) bool { return true }}, first, answering("second"))
	if _, err := f.Request(ctx, hello(), model.Params{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A request's own deadline passes on (and counts as sent).
	slow := model.NewFunctionModel(func(ctx context.Context, _ []model.Message, _ model.Params) (model.Message, error) {
		ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
		defer cancel()
		<-ctx.Done()
		return model.Message{}, ctx.Err()
	})
	got, err := fallback(t, model.FallbackOptions{}, slow, answering("second")).Request(context.Background(), hello(), model.Params{})
	if err != nil || got.ModelName != "second" || len(got.Attempts) != 1 || !got.Attempts[0].Sent || got.Usage.Requests != 2 {
		t.Fatalf("deadline: %v %+v", err, got)
	}
	// A connection that failed is not a request.
	down := &failing{err: &model.ProviderError{Provider: "p", Code: "connection_error", Message: "refused"}}
	got, err = fallback(t, model.FallbackOptions{}, down, answering("second")).Request(context.Background(), hello(), model.Params{})
	if err != nil || got.Attempts[0].Sent || got.Usage.Requests != 1 {
		t.Fatalf("connection: %v %+v", err, got)
	}
	b, _ := json.Marshal(got.Attempts[0])
	if !strings.Contains(string(b), `"code":"connection_error"`) {
		t.Errorf("attempt JSON %s", b)
	}
	if _, err := model.NewFallback(nil, model.FallbackOptions{}); err == nil {
		t.Error("empty fallback built")
	}
}
