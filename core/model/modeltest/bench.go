package modeltest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Measure runs do in b.Loop and reports allocations and cpu-ns/op: the
// process's CPU time per iteration (see [CPUTime]), the local server's
// share included, the same on every side a benchmark compares.
func Measure(b *testing.B, do func()) {
	b.Helper()
	b.ReportAllocs()
	start := CPUTime(b)
	for b.Loop() {
		do()
	}
	b.ReportMetric(float64(CPUTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// Canned is a benchmark's local server (closed with its test): it answers
// every request with one body and keeps the first request, which
// [Canned.Repost] sends again as a bare HTTP client would.
type Canned struct {
	*httptest.Server

	mu    sync.Mutex
	first *Request
}

// NewCanned starts a Canned answering body as contentType.
func NewCanned(tb testing.TB, contentType string, body []byte) *Canned {
	tb.Helper()
	c := &Canned{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		if c.first == nil {
			c.first = &Request{Body: raw, Header: r.Header.Clone(), URL: r.URL.RequestURI(), Path: r.URL.EscapedPath(), At: time.Now()}
		}
		c.mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	tb.Cleanup(c.Close)
	return c
}

// First returns the first request received, failing tb if none was.
func (c *Canned) First(tb testing.TB) Request {
	tb.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		tb.Fatal("the server received no request")
	}
	r := *c.first
	r.Header = r.Header.Clone()
	return r
}

// Repost returns a func that sends the first request again (its body,
// headers and URI) over the server's client and reads the answer whole
// without decoding it: the floor a provider's request is measured
// against.
func (c *Canned) Repost(tb testing.TB, ctx context.Context) func() {
	tb.Helper()
	first := c.First(tb)
	first.Header.Del("Content-Length")
	hc, url := c.Client(), c.URL+first.URL
	return func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(first.Body))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header = first.Header.Clone()
		res, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
	}
}
