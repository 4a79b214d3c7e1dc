package anthropic_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model/anthropic"
)

// reply is one scripted answer of the fake Messages API.
type reply struct {
	status int
	header map[string]string
	file   string // a testdata file sent as the body
	sse    bool   // sent as text/event-stream
	cut    bool   // the connection is dropped after the body
	block  bool   // no answer until the client gives up
}

// fake is an httptest server that replays testdata fixtures in order and
// records every request it receives.
type fake struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	bodies  [][]byte
	headers []http.Header
	times   []time.Time
}

func newFake(t *testing.T, replies ...reply) *fake {
	t.Helper()
	f := &fake{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.headers = append(f.headers, r.Header.Clone())
	f.times = append(f.times, time.Now())
	if len(f.replies) == 0 {
		f.mu.Unlock()
		f.t.Errorf("unexpected request %d to %s", len(f.bodies), r.URL.Path)
		http.Error(w, "no reply scripted", http.StatusTeapot)
		return
	}
	rp := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	if r.URL.Path != "/v1/messages" {
		f.t.Errorf("path = %s, want /v1/messages", r.URL.Path)
	}
	if rp.block {
		<-r.Context().Done()
		return
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if rp.sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rp.file != "" {
		_, _ = w.Write(fixture(f.t, rp.file))
	}
	if rp.cut {
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// body returns the i-th request body, decoded.
func (f *fake) body(i int) map[string]any {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.bodies) {
		f.t.Fatalf("only %d requests, want #%d", len(f.bodies), i)
	}
	var v map[string]any
	if err := json.Unmarshal(f.bodies[i], &v); err != nil {
		f.t.Fatalf("request %d: %v", i, err)
	}
	return v
}

// header returns the headers of the i-th request.
func (f *fake) header(i int) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[i]
}

// gap returns the time between the arrival of requests i-1 and i.
func (f *fake) gap(i int) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.times[i].Sub(f.times[i-1])
}

func (f *fake) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
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
func (f *fake) model(retries int) *anthropic.Model {
	return f.modelWith(retries, anthropic.Options{})
}

// modelWith is model with the settings of o besides its Config.
func (f *fake) modelWith(retries int, o anthropic.Options) *anthropic.Model {
	o.Config = anthropic.Config{
		APIKey:     testKey,
		BaseURL:    f.srv.URL,
		HTTPClient: f.srv.Client(),
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
