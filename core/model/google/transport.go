package google

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/starweaver-go/starweaver/core/model"
)

// policyTransport sends every request of the SDK's client through the
// model's HTTPPolicy: the genai SDK has no middleware, but it takes an
// *http.Client, whose transport this is. The SDK's own retries stay off
// (it retries only when HTTPOptions.RetryOptions is set, which the models
// never do).
type policyTransport struct {
	policy *model.HTTPPolicy
	base   http.RoundTripper
}

func (t *policyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	res, err := t.policy.Do(req, base.RoundTrip)
	if res != nil && res.StatusCode < 300 && res.Body != nil && strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body = newCommentFilter(res.Body)
	}
	if res != nil && res.StatusCode >= 400 {
		// The SDK's errors carry no headers: keep what the policy would
		// add to the message (a Retry-After above the cap).
		if n, ok := req.Context().Value(noteKey{}).(*note); ok {
			n.set(t.policy.Describe(res.Header))
		}
	}
	return res, err
}

// note holds, for one request, what its error message gains from the
// last response's headers.
type note struct {
	mu   sync.Mutex
	text string
}

type noteKey struct{}

func (n *note) set(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.text = s
}

func (n *note) get() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.text
}

// withNote returns ctx carrying a fresh note.
func withNote(ctx context.Context) (context.Context, *note) {
	n := &note{}
	return context.WithValue(ctx, noteKey{}, n), n
}

// commentFilter drops the comment lines (": keep-alive") of an event
// stream, and the blank line ending an event made of comments only: SSE
// allows them and proxies send them, but the SDK's decoder fails on any
// line that is not "data:". It passes every other line as it arrives, so a
// stream's latency is unchanged.
type commentFilter struct {
	rc      io.ReadCloser
	r       *bufio.Reader
	pending []byte
	// mid: the last line read was cut by a full buffer, so what follows
	// continues it; fresh: no line of the current event was passed.
	mid, fresh, dropped bool
}

func newCommentFilter(rc io.ReadCloser) *commentFilter {
	return &commentFilter{rc: rc, r: bufio.NewReader(rc), fresh: true}
}

func (f *commentFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.r.ReadSlice('\n')
		if len(line) > 0 {
			start := !f.mid
			f.mid = line[len(line)-1] != '\n'
			blank := start && !f.mid && len(bytes.TrimRight(line, "\r\n")) == 0
			switch {
			case start && line[0] == ':':
				f.dropped = true
				for f.mid && err == bufio.ErrBufferFull {
					// A comment longer than the buffer: drop all of it.
					line, err = f.r.ReadSlice('\n')
					f.mid = len(line) > 0 && line[len(line)-1] != '\n'
				}
				f.mid = false
			case blank && f.fresh && f.dropped:
				// The end of an event of comments only.
				f.dropped = false
			default:
				f.pending = line
				f.fresh = blank
				if blank {
					f.dropped = false
				}
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			if len(f.pending) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *commentFilter) Close() error { return f.rc.Close() }
