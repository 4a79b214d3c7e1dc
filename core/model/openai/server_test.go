package openai

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

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// testKey is the key test clients send; no error may echo it.
const testKey = "sk-test-0123456789abcdefSECRETcret"

// reply is one scripted HTTP answer of a fake server.
type reply struct {
	status  int
	body    string
	headers map[string]string
	sse     bool
	// cut declares a longer body than is written, so the server drops the
	// connection mid-body (a disconnect in the middle of a stream).
	cut bool
}

// received is one request a fake server got.
type received struct {
	path   string
	header http.Header
	body   map[string]any
	raw    []byte
	at     time.Time
}

// fakeServer replays scripted replies in order (the last one repeats) and
// records every request, as an OpenAI endpoint would receive it.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	reqs    []received
}

func newServer(t testing.TB, replies ...reply) *fakeServer {
	t.Helper()
	s := &fakeServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := received{path: r.URL.Path, header: r.Header.Clone(), raw: raw, at: time.Now()}
	_ = json.Unmarshal(raw, &rec.body)
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, rec)
	rp := s.replies[min(i, len(s.replies)-1)]
	s.mu.Unlock()
	for k, v := range rp.headers {
		w.Header().Set(k, v)
	}
	if rp.sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if rp.cut {
		w.Header().Set("Content-Length", "1000000")
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, rp.body)
}

func (s *fakeServer) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.reqs...)
}

func (s *fakeServer) last(t testing.TB) received {
	t.Helper()
	reqs := s.requests()
	if len(reqs) == 0 {
		t.Fatal("the server received no request")
	}
	return reqs[len(reqs)-1]
}

// client returns an SDK client for the server with the test key.
func (s *fakeServer) client(opts ...option.RequestOption) sdk.Client {
	return sdk.NewClient(append([]option.RequestOption{option.WithBaseURL(s.URL), option.WithAPIKey(testKey)}, opts...)...)
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ok(t testing.TB, name string) reply { return reply{body: fixture(t, name)} }

func sse(t testing.TB, name string) reply { return reply{body: fixture(t, name), sse: true} }

// jsonEq asserts that got, marshalled, equals the JSON text want.
func jsonEq(t testing.TB, got any, want string) {
	t.Helper()
	var g, w any
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(b, &g)
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Fatalf("got  %s\nwant %s", gb, wb)
	}
}

type sdkClient = sdk.Client

func newSDKClient(opts ...option.RequestOption) sdk.Client { return sdk.NewClient(opts...) }

// must returns m, panicking on a building error: the tests build valid
// models only.
func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}
