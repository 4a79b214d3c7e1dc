package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func TestRetry500ThenSuccess(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		srv := newServer(t,
			reply{status: http.StatusInternalServerError, body: fixture(t, "error_500.json"), headers: map[string]string{"Retry-After-Ms": "5"}},
			ok(t, "chat_text.json"))
		if streaming {
			srv.replies[1] = sse(t, "chat_stream_tool_calls.sse")
		}
		m := must(New(srv.client(), "gpt-4o-mini", Options{Streaming: streaming}))
		if _, err := m.Request(context.Background(), hello(), model.Params{}); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.requests()); n != 2 {
			t.Fatalf("streaming %v: %d requests", streaming, n)
		}
	}
}

func TestRetriesExhaustedBecomeProviderError(t *testing.T) {
	srv := newServer(t, reply{status: http.StatusInternalServerError, body: fixture(t, "error_500.json"), headers: map[string]string{"Retry-After-Ms": "1"}})
	retries := 1
	m := must(NewChatFromConfig("gpt-4o-mini", Options{Config: Config{APIKey: testKey, BaseURL: srv.URL, MaxRetries: &retries}}))
	_, err := m.Request(context.Background(), hello(), model.Params{})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 500 || pe.Code != "server_error" || !strings.Contains(pe.Message, "The server had an error") {
		t.Fatalf("err = %#v", err)
	}
	if n := len(srv.requests()); n != 2 {
		t.Errorf("%d requests, want 1 + 1 retry", n)
	}
}

// A 401 is not retried; the error has the provider's status, code and
// message, and never the key (OpenAI's message quotes a masked prefix of
// it; nothing of it is kept).
func TestUnauthorizedIsProviderErrorWithoutKey(t *testing.T) {
	for _, api := range []string{"chat", "responses", "chat-stream", "responses-stream"} {
		t.Run(api, func(t *testing.T) {
			srv := newServer(t, reply{status: http.StatusUnauthorized, body: fixture(t, "error_401.json")})
			var m model.Model
			o := Options{Streaming: strings.HasSuffix(api, "stream")}
			if strings.HasPrefix(api, "chat") {
				m = must(New(srv.client(), "gpt-4o-mini", o))
			} else {
				m = must(NewResponses(srv.client(), "gpt-4o-mini", o))
			}
			_, err := m.Request(context.Background(), hello(), model.Params{})
			var pe *model.ProviderError
			if !errors.As(err, &pe) || pe.StatusCode != 401 || pe.Code != "invalid_api_key" || !strings.Contains(pe.Message, "Incorrect API key provided") {
				t.Fatalf("err = %#v", err)
			}
			if !errors.Is(err, model.ErrModel) {
				t.Error("not a model error")
			}
			for _, leak := range []string{testKey, "SECRET", "sk-test"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error shows %q: %v", leak, err)
				}
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("%d requests: a 401 must not be retried", n)
			}
		})
	}
}

func TestContextLengthIsProviderError(t *testing.T) {
	srv := newServer(t, reply{status: http.StatusBadRequest, body: fixture(t, "error_context_length.json")})
	_, err := must(New(srv.client(), "gpt-4o", Options{})).Request(context.Background(), hello(), model.Params{})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 400 || pe.Code != "context_length_exceeded" {
		t.Fatalf("err = %#v", err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}
