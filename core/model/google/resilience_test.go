package google_test

import (
	"context"
	"strings"
	"testing"

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
