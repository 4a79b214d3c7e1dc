package bedrock

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/starweaver-go/starweaver/core/model"
)

// policyClient sends each request of the SDK through the model's
// HTTPPolicy, below SigV4 signing: a retry resends the signed request,
// which stays valid for five minutes, longer than any wait the policy
// allows (model.DefaultMaxRetryAfter and an 8 s backoff cap).
type policyClient struct {
	policy *model.HTTPPolicy
	next   bedrockruntime.HTTPClient
}

func (c *policyClient) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// The SDK's body reads once; the policy needs it again to retry.
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("bedrock: reading the request body: %w", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return c.policy.Do(req, c.next.Do)
}

// credsRecorder remembers the credentials one request was signed with, so
// that its errors mask them whatever chain provided them.
type credsRecorder struct {
	next aws.CredentialsProvider
	got  aws.Credentials
}

func (r *credsRecorder) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := r.next.Retrieve(ctx)
	if err == nil {
		r.got = c
	}
	return c, err
}

// operationOptions returns the per-call options of one request: the
// policy around the HTTP client, the credentials recorded into rec, and
// the model's and the request's headers.
func (m *Model) operationOptions(rec *credsRecorder, extra map[string]string) func(*bedrockruntime.Options) {
	return func(o *bedrockruntime.Options) {
		next := o.HTTPClient
		if next == nil {
			next = http.DefaultClient
		}
		o.HTTPClient = &policyClient{policy: m.policy, next: next}
		if o.Credentials != nil {
			rec.next = o.Credentials
			o.Credentials = rec
		}
		for _, h := range []map[string]string{m.headers, extra} {
			for k, v := range h {
				o.APIOptions = append(o.APIOptions, smithyhttp.SetHeaderValue(k, v))
			}
		}
	}
}
