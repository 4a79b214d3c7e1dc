package google

import (
	"context"
	"net/http"
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
