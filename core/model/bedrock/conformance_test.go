package bedrock_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// The conformance suite over a fake of Converse and ConverseStream, the
// same wire shapes as fake_test.go (the API reference's request body,
// response, stream events as binary event-stream frames, and restJson1
// errors: the exception name as "__type" in the body beside "message").

func TestConformance(t *testing.T) {
	modeltest.Run(t, modeltest.Provider{
		Name:    bedrock.ProviderName,
		NewFake: func(t *testing.T) modeltest.Fake { return modeltest.NewHTTPFake(t, converseWire{t}) },
		NewModel: func(t *testing.T, url string, o modeltest.Options) model.Model {
			isolate(t)
			retries := o.MaxRetries
			// The suite's key is the secret access key: the one secret of
			// a SigV4 request.
			return must(bedrock.NewFromConfig(testModel, bedrock.Options{
				Config: bedrock.Config{Region: "us-east-1", EndpointURL: url, AccessKeyID: testAccessKey,
					SecretAccessKey: o.APIKey, MaxRetries: &retries, Headers: o.Headers, Timeout: o.Timeout},
				Streaming:  o.Streaming,
				HTTPBounds: o.HTTPBounds,
			}))
		},
		NativeOutput: true, // outputConfig.textFormat (json_schema)
		// toolResult content takes text, json, image and document blocks,
		// media as bytes only.
		Carries:          map[string]bool{"text": true, "image": true, "document": true, "resource_link": true},
		NoURL:            map[string]bool{"image": true, "document": true},
		Usage:            []string{modeltest.UsageInput, modeltest.UsageOutput, modeltest.UsageCacheRead, modeltest.UsageCacheWrite},
		Thinking:         true,
		ThinkingSentBack: true, // reasoningContent with its signature
	})
}

// converseWire is Bedrock Runtime: POST /model/{modelId}/converse and
// /model/{modelId}/converse-stream.
type converseWire struct{ t *testing.T }

func (w converseWire) Decode(r *http.Request, body []byte) (modeltest.Seen, error) {
	p := r.URL.EscapedPath()
	if !strings.HasPrefix(p, "/model/") || !strings.HasSuffix(p, "/converse") && !strings.HasSuffix(p, "/converse-stream") {
		return modeltest.Seen{}, fmt.Errorf("path %s, want /model/{modelId}/converse[-stream]", p)
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		return modeltest.Seen{}, fmt.Errorf("the request is not SigV4-signed: %q", r.Header.Get("Authorization"))
	}
	return seenOf(w.t, p, body, r.Header), nil
}

func (w converseWire) Answer(rw http.ResponseWriter, s modeltest.Seen, tn modeltest.Turn) {
	rp := renderTurn(w.t, &tn, s.Stream)
	if !rp.stream {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusOK)
		_, _ = rw.Write(rp.raw)
		return
	}
	rw.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	rw.WriteHeader(http.StatusOK)
	enc := eventstream.NewEncoder()
	for _, ev := range rp.events {
		if err := enc.Encode(rw, frame(ev)); err != nil {
			return
		}
		rw.(http.Flusher).Flush()
	}
}

func (w converseWire) Error(rw http.ResponseWriter, tn modeltest.Turn) {
	_, _ = rw.Write(mustJSON(w.t, map[string]string{"__type": tn.Code, "message": tn.Message}))
}
