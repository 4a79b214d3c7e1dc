package google_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
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
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	bodies  [][]byte
	headers []http.Header
	urls    []string
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
	f.urls = append(f.urls, r.URL.String())
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
	stream := strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	if !stream && !strings.HasSuffix(r.URL.Path, ":generateContent") || !strings.Contains(r.URL.Path, "/models/") {
		f.t.Errorf("path = %s, want .../models/{model}:generateContent or :streamGenerateContent", r.URL.Path)
	}
	if stream && r.URL.Query().Get("alt") != "sse" {
		f.t.Errorf("stream without alt=sse: %s", r.URL)
	}
	if rp.block {
		<-r.Context().Done()
		return
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if stream && rp.status == 0 {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rp.file != "" {
		_, _ = w.Write(fixture(f.t, rp.file))
	} else {
		_, _ = io.WriteString(w, rp.body)
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

func (f *fake) header(i int) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[i]
}

func (f *fake) url(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.urls[i]
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

// testKey is an API key no shape rule recognises: only masking the
// configured value hides it.
const testKey = "AIzaSyTest-0123456789-secretKey"

// model returns a model over the fake server with retries set to n.
func (f *fake) model(retries int) *google.Model {
	return f.modelWith(retries, google.Options{})
}

// modelWith is model with the settings of o besides its Config.
func (f *fake) modelWith(retries int, o google.Options) *google.Model {
	o.Config = google.Config{
		APIKey:     testKey,
		BaseURL:    f.srv.URL,
		HTTPClient: f.srv.Client(),
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
