package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// echoKey is a key no shape rule recognises: only masking the configured
// value hides it.
const echoKey = "gw-Zk81QmP3vX7sT2nR"

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
			pe := modeltest.ProviderError(t, err)
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
	if pe := modeltest.ProviderError(t, err); pe.StatusCode != 401 || !strings.Contains(pe.Message, "ANTHROPIC_API_KEY is unset") {
		t.Fatalf("%+v", pe)
	}
}
