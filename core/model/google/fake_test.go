package google_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// reply is one scripted answer of the fake Gemini API.
type reply struct {
	status int
	header map[string]string
	file   string // a testdata file sent as the body
	body   string // sent when file is empty
	cut    bool   // the connection is dropped after the body
	block  bool   // no answer until the client gives up
}

// fake is an httptest server speaking the Gemini API's generateContent and
// streamGenerateContent (alt=sse): it replays testdata fixtures in order
// and records every request it receives.
type fake struct {
	*modeltest.Replay[reply]
}

func newFake(t *testing.T, replies ...reply) fake {
	t.Helper()
	return fake{modeltest.NewReplay(t, func(r *http.Request, _ int, rp reply) modeltest.Reply {
		stream := strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
		if !stream && !strings.HasSuffix(r.URL.Path, ":generateContent") || !strings.Contains(r.URL.Path, "/models/") {
			t.Errorf("path = %s, want .../models/{model}:generateContent or :streamGenerateContent", r.URL.Path)
		}
		if stream && r.URL.Query().Get("alt") != "sse" {
			t.Errorf("stream without alt=sse: %s", r.URL)
		}
		a := modeltest.Reply{Status: rp.status, Header: map[string]string{}, Body: []byte(rp.body), Cut: rp.cut, Hold: rp.block}
		for k, v := range rp.header {
			a.Header[k] = v
		}
		a.Header["Content-Type"] = "application/json; charset=UTF-8"
		if stream && rp.status == 0 {
			a.Header["Content-Type"] = "text/event-stream"
		}
		if rp.file != "" {
			a.Body = fixture(t, rp.file)
		}
		return a
	}, replies...)}
}

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testKey is an API key no shape rule recognises: only masking the
// configured value hides it.
const testKey = "AIzaSyTest-0123456789-secretKey"

// model returns a model over the fake server with retries set to n.
func (f fake) model(retries int) *google.Model {
	return f.modelWith(retries, google.Options{})
}

// modelWith is model with the settings of o besides its Config.
func (f fake) modelWith(retries int, o google.Options) *google.Model {
	o.Config = google.Config{
		APIKey:     testKey,
		BaseURL:    f.URL,
		HTTPClient: f.Client(),
		MaxRetries: &retries,
	}
	return must(google.NewFromConfig("gemini-2.5-flash", o))
}

func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}

// jsonOf re-encodes v so that tests compare JSON values, not Go types.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ask(text string) []model.Message {
	return []model.Message{model.Request(model.UserPrompt(text))}
}
