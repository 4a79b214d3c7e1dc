package openai_test

import (
	"context"
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

func ask() []model.Message {
	return []model.Message{model.Request(model.UserPrompt("hi"))}
}

// must returns m, panicking on a building error: the tests build valid
// models only.
func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
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
