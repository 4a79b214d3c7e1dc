package anthropic_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// reply is one scripted answer of the fake Messages API.
type reply struct {
	status int
	header map[string]string
	file   string // a testdata file sent as the body
	sse    bool   // sent as text/event-stream
	cut    bool   // the connection is dropped after the body
}

// fake is an httptest server that replays testdata fixtures in order and
// records every request it receives.
type fake struct {
	*modeltest.Replay[reply]
}

func newFake(t *testing.T, replies ...reply) fake {
	t.Helper()
	return fake{modeltest.NewReplay(t, func(r *http.Request, _ int, rp reply) modeltest.Reply {
		if r.URL.Path != "/v1/messages" {
			t.Errorf("path = %s, want /v1/messages", r.URL.Path)
		}
		a := modeltest.Reply{Status: rp.status, Header: map[string]string{}, Cut: rp.cut}
		for k, v := range rp.header {
			a.Header[k] = v
		}
		if rp.sse {
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

const testKey = "sk-ant-test-0123456789-secret"

// model returns a model over the fake server with retries set to n.
func (f fake) model(retries int) *anthropic.Model {
	return f.modelWith(retries, anthropic.Options{})
}

// modelWith is model with the settings of o besides its Config.
func (f fake) modelWith(retries int, o anthropic.Options) *anthropic.Model {
	o.Config = anthropic.Config{
		APIKey:     testKey,
		BaseURL:    f.URL,
		HTTPClient: f.Client(),
		MaxRetries: &retries,
	}
	return must(anthropic.NewFromConfig("claude-sonnet-4-5", o))
}

// must returns m, panicking on a building error: the tests build valid
// models only.
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
