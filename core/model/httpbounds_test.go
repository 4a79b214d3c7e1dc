package model_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// do sends a GET to url through policy over client.
func do(t *testing.T, p *model.HTTPPolicy, client *http.Client, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Do(req, client.Do)
}

func timeoutPhase(t *testing.T, err error) string {
	t.Helper()
	var te *model.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want a *model.TimeoutError", err, err)
	}
	return te.Phase
}

func TestBoundsDefaults(t *testing.T) {
	got := model.HTTPBounds{IdleTimeout: time.Second, MaxRetryAfter: -1}.Resolved()
	want := model.HTTPBounds{ConnectTimeout: model.DefaultConnectTimeout, FirstByteTimeout: model.DefaultFirstByteTimeout, IdleTimeout: time.Second}
	if got != want {
		t.Fatalf("Resolved() = %+v, want %+v", got, want)
	}
}

// A stream that sends only keep-alive comments and pings ends with an
// idle timeout; events that carry data keep it going.
func TestIdleTimeoutIgnoresKeepAlives(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fl := w.(http.Flusher)
		io.WriteString(w, "data: {\"n\":1}\n\n")
		fl.Flush()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			if i%2 == 0 {
				io.WriteString(w, ": keep-alive\n\n")
			} else {
				io.WriteString(w, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
			}
			fl.Flush()
		}
	}))
	defer srv.Close()
	p := model.NewHTTPPolicy(model.HTTPBounds{IdleTimeout: 150 * time.Millisecond}, 0)
	start := time.Now()
	res, err := do(t, p, srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if phase := timeoutPhase(t, err); phase != model.PhaseIdle {
		t.Fatalf("phase = %q", phase)
	}
	if !strings.Contains(string(body), `{"n":1}`) || !strings.Contains(err.Error(), "idle_timeout") {
		t.Fatalf("body %q, err %v", body, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
}

// The first-byte timeout ends an attempt that gets no headers; it is not
// retried.
func TestFirstByteTimeoutIsNotRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		<-r.Context().Done()
	}))
	defer srv.Close()
	p := model.NewHTTPPolicy(model.HTTPBounds{FirstByteTimeout: 100 * time.Millisecond}, 2)
	_, err := do(t, p, srv.Client(), srv.URL)
	if phase := timeoutPhase(t, err); phase != model.PhaseFirstByte || n.Load() != 1 {
		t.Fatalf("phase %q after %d attempts", phase, n.Load())
	}
}

// A dial that never completes ends with a connect timeout.
func TestConnectTimeout(t *testing.T) {
	dialed := make(chan struct{}, 4)
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		dialed <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}}
	p := model.NewHTTPPolicy(model.HTTPBounds{ConnectTimeout: 100 * time.Millisecond}, 0)
	_, err := do(t, p, client, "http://192.0.2.1/")
	if phase := timeoutPhase(t, err); phase != model.PhaseConnect || len(dialed) != 1 {
		t.Fatalf("phase %q after %d dials", phase, len(dialed))
	}
}

// A 429 whose Retry-After is above the cap is returned at once, marked so
// that a client's own retries do not wait it out either; one within the
// cap is waited out and retried.
func TestRetryAfterCap(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After-Ms", "20")
			w.WriteHeader(429)
		case 2:
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(429)
		default:
			w.WriteHeader(200)
		}
	}))
	defer srv.Close()
	p := model.NewHTTPPolicy(model.HTTPBounds{}, 5)
	start := time.Now()
	res, err := do(t, p, srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || n.Load() != 2 || res.Header.Get("x-should-retry") != "false" {
		t.Fatalf("status %d after %d attempts, x-should-retry %q", res.StatusCode, n.Load(), res.Header.Get("x-should-retry"))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("waited %v", d)
	}
	if note := p.Describe(res.Header); !strings.Contains(note, "1h0m0s") || !strings.Contains(note, "1m0s") {
		t.Fatalf("note = %q", note)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	for _, c := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After-Ms": {"15"}, "Retry-After": {"9"}}, 15 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{}, 0, false},
	} {
		if d, ok := model.RetryAfter(c.h); d != c.want || ok != c.ok {
			t.Errorf("RetryAfter(%v) = %v, %v", c.h, d, ok)
		}
	}
}
