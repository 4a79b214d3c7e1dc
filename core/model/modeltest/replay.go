package modeltest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Reply is one answer of a [Replay], as it goes on the wire.
type Reply struct {
	// Status is the HTTP status; 0 is 200.
	Status int
	// Header is set on the answer; Content-Type is application/json
	// unless Header names another.
	Header map[string]string
	// Body is sent whole, then flushed.
	Body []byte
	// Cut drops the connection after Body; Stall sends nothing more
	// until the client gives up; Hold sends nothing at all (not even the
	// status) until then.
	Cut, Stall, Hold bool
}

// Request is what a [Replay] recorded of one request.
type Request struct {
	Body   []byte
	Header http.Header
	// URL is the request's URI (path and query), Path its escaped path.
	URL, Path string
	// At is when it arrived.
	At time.Time
}

// Replay is an httptest server (closed with its test) that answers
// scripted replies in order and records every request: the scaffolding of
// a provider's wire tests, whose answers are the API's documented bodies
// (testdata fixtures) in the provider's own reply type R. render checks
// the n-th request (from 1) and makes the Reply of rp for it (its body and
// content type may depend on the request: streamed or not). A request
// past the script fails the test and is answered 418.
type Replay[R any] struct {
	*httptest.Server
	tb     testing.TB
	render func(r *http.Request, n int, rp R) Reply

	mu      sync.Mutex
	replies []R
	reqs    []Request
}

// NewReplay starts a Replay answering replies.
func NewReplay[R any](tb testing.TB, render func(r *http.Request, n int, rp R) Reply, replies ...R) *Replay[R] {
	tb.Helper()
	p := &Replay[R]{tb: tb, render: render, replies: replies}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	tb.Cleanup(p.Close)
	return p
}

// Add queues more replies.
func (p *Replay[R]) Add(replies ...R) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replies = append(p.replies, replies...)
}

// Requests is the number of requests received so far.
func (p *Replay[R]) Requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reqs)
}

// Request returns the i-th request received, failing the test if there
// is none.
func (p *Replay[R]) Request(i int) Request {
	p.tb.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= len(p.reqs) {
		p.tb.Fatalf("only %d requests, want #%d", len(p.reqs), i)
	}
	return p.reqs[i]
}

// Body returns the i-th request's body decoded as a JSON object.
func (p *Replay[R]) Body(i int) map[string]any {
	p.tb.Helper()
	var v map[string]any
	if err := json.Unmarshal(p.Request(i).Body, &v); err != nil {
		p.tb.Fatalf("request %d: %v", i, err)
	}
	return v
}

// Gap returns the time between the arrivals of requests i-1 and i.
func (p *Replay[R]) Gap(i int) time.Duration {
	p.tb.Helper()
	return p.Request(i).At.Sub(p.Request(i - 1).At)
}

func (p *Replay[R]) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.reqs = append(p.reqs, Request{Body: body, Header: r.Header.Clone(), URL: r.URL.RequestURI(), Path: r.URL.EscapedPath(), At: time.Now()})
	n := len(p.reqs)
	if len(p.replies) == 0 {
		p.mu.Unlock()
		p.tb.Errorf("unexpected request %d to %s", n, r.URL.Path)
		http.Error(w, "no reply scripted", http.StatusTeapot)
		return
	}
	rp := p.replies[0]
	p.replies = p.replies[1:]
	p.mu.Unlock()
	a := p.render(r, n, rp)
	if a.Hold {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	switch {
	case a.Stall:
		<-r.Context().Done()
	case a.Cut:
		panic(http.ErrAbortHandler)
	}
}
