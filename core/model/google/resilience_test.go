package google_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func TestRetryUnavailableAndInternal(t *testing.T) {
	fast := map[string]string{"retry-after-ms": "1"}
	f := newFake(t,
		reply{status: 503, header: fast, file: "error_503.json"},
		reply{status: 500, header: fast, file: "error_500.json"},
		reply{file: "text.json"})
	if _, err := f.model(2).Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if f.Requests() != 3 {
		t.Fatalf("requests = %d, want 3", f.Requests())
	}
}

func TestRetriesSpentIsProviderError(t *testing.T) {
	fast := map[string]string{"retry-after-ms": "1"}
	f := newFake(t,
		reply{status: 503, header: fast, file: "error_503.json"},
		reply{status: 503, header: fast, file: "error_503.json"})
	_, err := f.model(1).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if *pe != (model.ProviderError{Provider: "google", StatusCode: 503, Code: "UNAVAILABLE", Message: "The model is overloaded. Please try again later."}) {
		t.Fatalf("provider error = %+v", *pe)
	}
}

// A bad key is a 400 INVALID_ARGUMENT on the Gemini API: not retried.
func TestInvalidKeyIsNotRetried(t *testing.T) {
	f := newFake(t, reply{status: 400, file: "error_400_key.json"})
	_, err := f.modelWith(2, google.Options{ProviderName: "gateway"}).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if *pe != (model.ProviderError{Provider: "gateway", StatusCode: 400, Code: "INVALID_ARGUMENT", Message: "API key not valid. Please pass a valid API key."}) {
		t.Fatalf("provider error = %+v", *pe)
	}
	if f.Requests() != 1 {
		t.Fatalf("400 retried: %d requests", f.Requests())
	}
}

// A proxy's page that is not the API's JSON keeps the status, a code
// derived from it, and a bounded message.
func TestNonJSONErrorBody(t *testing.T) {
	f := newFake(t, reply{status: 502, body: "<html>" + strings.Repeat("bad gateway ", 200) + "</html>"})
	_, err := f.model(0).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.StatusCode != 502 || pe.Code != "UNAVAILABLE" || len(pe.Message) > 1100 {
		t.Fatalf("provider error = %+v", *pe)
	}
}

func TestConfigTimeout(t *testing.T) {
	f := newFake(t, reply{block: true})
	retries := 0
	m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{
		APIKey: testKey, BaseURL: f.URL, HTTPClient: f.Client(), MaxRetries: &retries, Timeout: 50 * time.Millisecond,
	}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

// A connection that fails is a connection_error whose text (a Go net error
// quoting the URL) carries no key, even one the URL would hold.
func TestConnectionFailureIsProviderError(t *testing.T) {
	f := newFake(t)
	retries := 0
	m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{
		APIKey: testKey, BaseURL: f.URL + "/?key=" + testKey, MaxRetries: &retries,
	}}))
	f.Close() // nothing listens any more
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if pe := modeltest.ProviderError(t, err, testKey); pe.Code != "connection_error" || pe.StatusCode != 0 {
		t.Fatalf("provider error = %+v", *pe)
	}
}

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
			fmt.Fprintf(w, `{"error":{"code":%d,"status":"INVALID_ARGUMENT","message":"rejected key %s (x-goog-api-key: %s, Authorization: %s)"}}`,
				status, echoKey, r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Proxy-Authorization"))
		}))
		retries := 0
		cfg := google.Config{APIKey: echoKey, BaseURL: srv.URL, MaxRetries: &retries, Headers: map[string]string{"Proxy-Authorization": "Basic cHJveHk6c2VjcmV0MTIz"}}
		for _, stream := range []bool{false, true} {
			m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: cfg, Streaming: stream}))
			_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
			pe := modeltest.ProviderError(t, err, testKey)
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
