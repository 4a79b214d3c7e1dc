package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
)

// echoKey is a key no shape rule recognises: only masking the configured
// value hides it.
const echoKey = "gw-Zk81QmP3vX7sT2nR"

func asProviderError(t *testing.T, err error) *model.ProviderError {
	t.Helper()
	var pe *model.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want a *model.ProviderError", err, err)
	}
	return pe
}

// A server (a gateway) that echoes the key in its error body, for 400, 401
// and 500, streamed or not: neither the error's text nor its fields carry
// the key or a credential header's value.
func TestEchoedKeyIsRedacted(t *testing.T) {
	for _, status := range []int{400, 401, 500} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"rejected key %s (x-api-key: %s, Authorization: %s)"}}`,
				echoKey, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"))
		}))
		retries := 0
		cfg := anthropic.Config{APIKey: echoKey, BaseURL: srv.URL, MaxRetries: &retries, Headers: map[string]string{"Proxy-Authorization": "Basic cHJveHk6c2VjcmV0MTIz"}}
		for _, stream := range []bool{false, true} {
			m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: cfg, Streaming: stream}))
			_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
			pe := asProviderError(t, err)
			if pe.StatusCode != status {
				t.Errorf("%d stream=%v: status %d", status, stream, pe.StatusCode)
			}
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", pe)} {
				if strings.Contains(s, echoKey) || strings.Contains(s, "cHJveHk6c2VjcmV0MTIz") {
					t.Errorf("%d stream=%v: the key leaks: %s", status, stream, s)
				}
			}
			if !strings.Contains(pe.Message, model.Redacted) {
				t.Errorf("%d stream=%v: message %q", status, stream, pe.Message)
			}
		}
		srv.Close()
	}
}

// A stream that sends only keep-alive comments and ping events ends with an
// idle timeout.
func TestKeepAliveOnlyStreamEndsWithIdleTimeout(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if i%2 == 0 {
				io.WriteString(w, ": keep-alive\n\n")
			} else {
				io.WriteString(w, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	}))
	defer srv.Close()
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{APIKey: "ant-test-key", BaseURL: srv.URL}, Streaming: true, HTTPBounds: model.HTTPBounds{IdleTimeout: 100 * time.Millisecond}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if pe := asProviderError(t, err); pe.Code != "idle_timeout" || hits.Load() != 1 {
		t.Fatalf("%+v after %d requests", pe, hits.Load())
	}
}

func TestFirstByteTimeout(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
		<-r.Context().Done()
	}))
	defer srv.Close()
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{APIKey: "ant-test-key", BaseURL: srv.URL}, HTTPBounds: model.HTTPBounds{FirstByteTimeout: 100 * time.Millisecond}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if pe := asProviderError(t, err); pe.Code != "first_byte_timeout" || hits.Load() != 1 {
		t.Fatalf("%+v after %d requests", pe, hits.Load())
	}
}

// The 429 behaviour is OpenAI's: a Retry-After within the cap is waited
// out, one above it (3600 s) fails at once with the status kept and the
// wait named.
func TestRateLimitRetryAfterCap(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n := hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			w.Header().Set("Retry-After-Ms", "10")
		} else {
			w.Header().Set("Retry-After", "3600")
		}
		w.WriteHeader(429)
		io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`)
	}))
	defer srv.Close()
	m := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{APIKey: "ant-test-key", BaseURL: srv.URL}}))
	start := time.Now()
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	pe := asProviderError(t, err)
	if pe.StatusCode != 429 || pe.Code != "rate_limit_error" || hits.Load() != 2 || !strings.Contains(pe.Message, "retry after 1h0m0s") {
		t.Fatalf("%+v after %d requests", pe, hits.Load())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

// With a base URL and no key, a 401 says that ANTHROPIC_API_KEY is unset.
func TestUnauthorizedWithoutKeyNamesTheVariable(t *testing.T) {
	t.Setenv(anthropic.EnvAPIKey, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}}`)
	}))
	defer srv.Close()
	_, err := must(anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{BaseURL: srv.URL}})).Request(context.Background(), ask("Hi"), model.Params{})
	if pe := asProviderError(t, err); pe.StatusCode != 401 || !strings.Contains(pe.Message, "ANTHROPIC_API_KEY is unset") {
		t.Fatalf("%+v", pe)
	}
}
