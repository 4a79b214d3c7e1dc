package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// Wire is what a provider's fake knows of its wire format, for
// [NewHTTPFake]: how to read a request and how to answer a turn.
type Wire interface {
	// Decode reads a request (its body already read) into what it held.
	Decode(r *http.Request, body []byte) (Seen, error)
	// Answer writes the answer of turn to a request that held s: a whole
	// JSON response, or its stream when s.Stream. Error turns (Status
	// set) go to Error instead.
	Answer(w http.ResponseWriter, s Seen, turn Turn)
	// Error writes the provider's error body for turn's Status, Code and
	// Message; the status and the Retry-After headers are written already.
	Error(w http.ResponseWriter, turn Turn)
}

// KeepAliver is a Wire whose event streams have a keep-alive of their own
// besides the SSE comment (Anthropic's ping event): a [Turn.Stall] sends
// both in turn.
type KeepAliver interface {
	// KeepAlive is one keep-alive event as written on the wire, blank
	// line included.
	KeepAlive() string
}

// NewHTTPFake returns a Fake over an httptest server (closed with t) that
// decodes each request with w, records it and answers the next scripted
// turn. A request past the script, or one w cannot decode, fails the test
// and is answered 418.
func NewHTTPFake(t *testing.T, w Wire) Fake {
	t.Helper()
	f := &httpFake{t: t, wire: w}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

type httpFake struct {
	t    *testing.T
	wire Wire
	srv  *httptest.Server

	mu    sync.Mutex
	turns []Turn
	seen  []Seen
}

func (f *httpFake) URL() string { return f.srv.URL }

func (f *httpFake) Script(turns ...Turn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turns = append(f.turns, turns...)
}

func (f *httpFake) Seen() []Seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Seen(nil), f.seen...)
}

func (f *httpFake) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake: reading the request: %v", err)
		http.Error(w, err.Error(), http.StatusTeapot)
		return
	}
	s, err := f.wire.Decode(r, body)
	if err != nil {
		f.t.Errorf("fake: %s %s: %v\n%s", r.Method, r.URL.Path, err, body)
		http.Error(w, err.Error(), http.StatusTeapot)
		return
	}
	s.Header, s.At, s.Body = r.Header.Clone(), at, body
	f.mu.Lock()
	f.seen = append(f.seen, s)
	n := len(f.seen)
	var tn Turn
	ok := len(f.turns) > 0
	if ok {
		tn, f.turns = f.turns[0], f.turns[1:]
	}
	f.mu.Unlock()
	if !ok {
		f.t.Errorf("fake: request %d is past the script", n)
		http.Error(w, "no turn scripted", http.StatusTeapot)
		return
	}
	switch {
	case tn.Hold:
		<-r.Context().Done()
		return
	case tn.Stall:
		f.stall(w, r, s, tn)
		return
	}
	if tn.Status != 0 {
		if tn.RetryAfter > 0 {
			w.Header().Set("Retry-After-Ms", strconv.FormatInt(tn.RetryAfter.Milliseconds(), 10))
			w.Header().Set("Retry-After", strconv.FormatInt(int64((tn.RetryAfter+time.Second-1)/time.Second), 10))
		}
		if tn.Echo {
			tn.Message += " (" + echo(r.Header) + ")"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(tn.Status)
		f.wire.Error(w, tn)
		return
	}
	if !tn.Cut {
		f.wire.Answer(w, s, tn)
		return
	}
	// The whole answer, then half of it on the wire: a client reading it
	// sees the connection drop before the end.
	rec := httptest.NewRecorder()
	f.wire.Answer(rec, s, tn)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	answer := rec.Body.Bytes()
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(answer[:len(answer)/2])
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	panic(http.ErrAbortHandler)
}

// echo is h as "name: value" pairs, sorted.
func echo(h http.Header) string {
	var out []string
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, k+": "+v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// stall writes the status and headers of tn's answer, then keep-alives
// until the client leaves.
func (f *httpFake) stall(w http.ResponseWriter, r *http.Request, s Seen, tn Turn) {
	rec := httptest.NewRecorder()
	f.wire.Answer(rec, s, tn)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	var alives []string
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		alives = append(alives, ": keep-alive\n\n")
		if k, ok := f.wire.(KeepAliver); ok {
			alives = append(alives, k.KeepAlive())
		}
	}
	fl, _ := w.(http.Flusher)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		if len(alives) > 0 {
			_, _ = io.WriteString(w, alives[i%len(alives)])
		}
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// WriteJSON answers 200 with v as JSON.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

// SSE writes server-sent events: Start sends the headers, Event one event.
type SSE struct{ w http.ResponseWriter }

// StartSSE answers 200 as an event stream.
func StartSSE(w http.ResponseWriter) SSE {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return SSE{w}
}

// Event writes one event named name ("" for none) whose data is v as JSON
// (a string v is written as is), and flushes it.
func (s SSE) Event(name string, v any) {
	var data []byte
	if str, ok := v.(string); ok {
		data = []byte(str)
	} else {
		data, _ = json.Marshal(v)
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// Pieces splits s into pieces of at most n bytes (whole runes), as a
// stream sends text in several deltas.
func Pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// FinishOf is the finish reason of tn: its own, or tool_calls when it has
// calls and stop otherwise.
func FinishOf(tn Turn) string {
	switch {
	case tn.Finish != "":
		return tn.Finish
	case len(tn.Calls) > 0:
		return model.FinishToolCalls
	}
	return model.FinishStop
}
