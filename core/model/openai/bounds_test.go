package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// echoKey is a key no shape rule recognises: only masking the configured
// value hides it.
const echoKey = "gw-Zk81QmP3vX7sT2nR"

func ask() []model.Message {
	return []model.Message{model.Request(model.UserPrompt("hi"))}
}

// kinds builds each model kind of the package from o, streamed and not.
func kinds(o openai.Options) map[string]model.Model {
	out := map[string]model.Model{}
	for _, stream := range []bool{false, true} {
		o.Streaming = stream
		out[fmt.Sprintf("chat/stream=%v", stream)] = must(openai.NewChatFromConfig("gpt-4.1", o))
		out[fmt.Sprintf("responses/stream=%v", stream)] = must(openai.NewResponsesFromConfig("gpt-4.1", o))
	}
	return out
}

// must returns m, panicking on a building error: the tests build valid
// models only.
func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}

// A server (a gateway) that echoes the key in its error body, for 400, 401
// and 500: neither the error's text nor its fields carry the key, nor
// any header value of the request.
func TestEchoedKeyIsRedacted(t *testing.T) {
	for _, status := range []int{400, 401, 500} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"rejected key %s (Authorization: %s; x-api-key: %s)","type":"invalid_request_error","code":"bad_key"}}`,
				echoKey, r.Header.Get("Authorization"), r.Header.Get("X-Custom-Token"))
		}))
		retries := 0
		cfg := openai.Config{APIKey: echoKey, BaseURL: srv.URL, MaxRetries: &retries, Headers: map[string]string{"X-Custom-Token": "hdr-secret-0987654321"}}
		for name, m := range kinds(openai.Options{Config: cfg}) {
			_, err := m.Request(context.Background(), ask(), model.Params{})
			pe := modeltest.ProviderError(t, err)
			if pe.StatusCode != status {
				t.Errorf("%d %s: status %d", status, name, pe.StatusCode)
			}
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", pe), pe.Message} {
				if strings.Contains(s, echoKey) || strings.Contains(s, "hdr-secret") {
					t.Errorf("%d %s: the key leaks: %s", status, name, s)
				}
			}
			if !strings.Contains(pe.Message, model.Redacted) {
				t.Errorf("%d %s: message %q", status, name, pe.Message)
			}
		}
		srv.Close()
	}
}

// With a base URL and no key, a 401 says that OPENAI_API_KEY is unset.
func TestUnauthorizedWithoutKeyNamesTheVariable(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	os.Unsetenv("OPENAI_API_KEY")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Missing bearer authentication in header","type":"invalid_request_error","code":null}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	_, err := must(openai.NewChatFromConfig("gpt-4.1", openai.Options{})).Request(context.Background(), ask(), model.Params{})
	if pe := modeltest.ProviderError(t, err); pe.StatusCode != 401 || !strings.Contains(pe.Message, "OPENAI_API_KEY is unset") {
		t.Fatalf("%+v", pe)
	}
	// With a key, a 401 says nothing of the variable.
	_, err = must(openai.NewChatFromConfig("gpt-4.1", openai.Options{Config: openai.Config{APIKey: "sk-test"}})).Request(context.Background(), ask(), model.Params{})
	if pe := modeltest.ProviderError(t, err); strings.Contains(pe.Message, "OPENAI_API_KEY") {
		t.Fatalf("%+v", pe)
	}
}
