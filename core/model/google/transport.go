package google

import (
	"net/http"

	"github.com/starweaver-go/starweaver/core/model"
)

// policyTransport sends every request through the model's HTTPPolicy: it
// is the transport of the HTTP client the model sends with (the client's
// own, for Vertex AI the SDK's authorising one, wrapped).
type policyTransport struct {
	policy *model.HTTPPolicy
	base   http.RoundTripper
}

func (t *policyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return t.policy.Do(req, base.RoundTrip)
}

// withPolicy returns a copy of hc (nil: a new client) whose transport goes
// through policy; hc is unchanged.
func withPolicy(hc *http.Client, policy *model.HTTPPolicy) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	c.Transport = &policyTransport{policy: policy, base: hc.Transport}
	return &c
}
