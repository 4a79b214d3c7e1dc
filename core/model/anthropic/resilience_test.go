package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// TestRetryOverloadedAndServerError: 529 overloaded, then 500, then
// success. retry-after-ms keeps the test fast; it sets the delay only,
// whether to retry is decided by the status.
func TestRetryOverloadedAndServerError(t *testing.T) {
	fast := map[string]string{"retry-after-ms": "1"}
	f := newFake(t,
		reply{status: 529, header: fast, file: "error_529.json"},
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
		reply{status: 529, header: fast, file: "error_529.json"},
		reply{status: 529, header: fast, file: "error_529.json"})
	_, err := f.model(1).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if *pe != (model.ProviderError{Provider: "anthropic", StatusCode: 529, Code: "overloaded_error", Message: "Overloaded"}) {
		t.Fatalf("provider error = %+v", *pe)
	}
}

func TestUnauthorizedIsProviderError(t *testing.T) {
	f := newFake(t, reply{status: 401, file: "error_401.json"})
	_, err := f.model(2).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if *pe != (model.ProviderError{Provider: "anthropic", StatusCode: 401, Code: "authentication_error", Message: "invalid x-api-key"}) {
		t.Fatalf("provider error = %+v", *pe)
	}
	if f.Requests() != 1 {
		t.Fatalf("401 retried: %d requests", f.Requests())
	}
}

func TestPromptTooLongIsNotRetried(t *testing.T) {
	f := newFake(t, reply{status: 400, file: "error_400.json"})
	_, err := f.modelWith(2, anthropic.Options{ProviderName: "gateway"}).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.Provider != "gateway" || pe.StatusCode != 400 || pe.Code != "invalid_request_error" || !strings.HasPrefix(pe.Message, "prompt is too long") {
		t.Fatalf("provider error = %+v", *pe)
	}
	if f.Requests() != 1 {
		t.Fatalf("400 retried: %d requests", f.Requests())
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
