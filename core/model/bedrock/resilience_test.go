package bedrock_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func errHeader(code string) map[string]string {
	return map[string]string{"X-Amzn-ErrorType": code + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}
}

// TestRetryAfterHonoured: a ThrottlingException with Retry-After: 1 is
// retried no sooner than a second later, then succeeds; the retried
// request is the same signed request.
func TestRetryAfterHonoured(t *testing.T) {
	h := errHeader("ThrottlingException")
	h["Retry-After"] = "1"
	f := newFake(t, reply{status: 429, header: h, file: "error_429.json"}, reply{file: "text.json"})
	got, err := f.model(2).Request(context.Background(), ask("Hi"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() == "" || f.Requests() != 2 {
		t.Fatalf("text = %q after %d requests", got.Text(), f.Requests())
	}
	if gap := f.Gap(1); gap < 950*time.Millisecond {
		t.Fatalf("retried after %v, want >= 1s (Retry-After)", gap)
	}
	if a, b := f.Request(0).Header.Get("Authorization"), f.Request(1).Header.Get("Authorization"); a != b {
		t.Fatalf("the retry was signed again: %q then %q", a, b)
	}
}

// TestRetriesThenProviderError: 503 twice (retries spent) maps to the
// status, the exception name and the API's message; the SDK retried
// nothing itself (three requests for two retries).
func TestRetriesThenProviderError(t *testing.T) {
	fast := errHeader("ServiceUnavailableException")
	fast["Retry-After-Ms"] = "1"
	f := newFake(t,
		reply{status: 503, header: fast, file: "error_503.json"},
		reply{status: 503, header: fast, file: "error_503.json"},
		reply{status: 503, header: fast, file: "error_503.json"})
	_, err := f.model(2).Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testSecret)
	want := model.ProviderError{Provider: "bedrock", StatusCode: 503, Code: "ServiceUnavailableException", Message: "The service isn't currently available. Try again later."}
	if *pe != want || f.Requests() != 3 {
		t.Fatalf("provider error = %+v after %d requests", *pe, f.Requests())
	}
}

func TestNotRetried(t *testing.T) {
	for _, c := range []struct {
		status int
		code   string
		file   string
	}{{400, "ValidationException", "error_400.json"}, {403, "AccessDeniedException", "error_403.json"}} {
		f := newFake(t, reply{status: c.status, header: errHeader(c.code), file: c.file})
		for _, stream := range []bool{false, true} {
			if stream {
				f = newFake(t, reply{status: c.status, header: errHeader(c.code), file: c.file})
			}
			_, err := f.modelWith(2, bedrock.Options{Streaming: stream}).Request(context.Background(), ask("Hi"), model.Params{})
			pe := modeltest.ProviderError(t, err, testSecret)
			if pe.StatusCode != c.status || pe.Code != c.code || pe.Message == "" || f.Requests() != 1 {
				t.Fatalf("stream=%v: %+v after %d requests", stream, *pe, f.Requests())
			}
		}
	}
}

// echoSecret is a session token no shape rule recognises: only masking the
// credentials a request was signed with hides it.
const echoSecret = "IQoJb3JpZ2luX2VjEXAMPLEsessionTOKEN"

// A server (a gateway) that echoes the credentials in its error body, for
// 400, 403 and 500, streamed or not, and in a stream's exception event:
// neither the error's text nor its fields carry the secret key, the
// session token or a credential header.
func TestEchoedCredentialsAreRedacted(t *testing.T) {
	isolate(t)
	// From the environment, as the AWS chain reads them.
	t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	t.Setenv("AWS_SESSION_TOKEN", echoSecret)
	t.Setenv("AWS_REGION", "eu-west-3")
	for _, status := range []int{400, 403, 500, 200} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			msg := fmt.Sprintf(`{"message":"rejected %s %s (X-Amz-Security-Token: %s, x-api-key: %s)"}`,
				testSecret, echoSecret, r.Header.Get("X-Amz-Security-Token"), r.Header.Get("X-Api-Key"))
			if status == 200 {
				w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
				w.WriteHeader(200)
				_ = eventstream.NewEncoder().Encode(w, frame(event{Exception: "validationException", Payload: []byte(msg)}))
				return
			}
			w.Header().Set("X-Amzn-ErrorType", "ValidationException")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, msg)
		}))
		retries := 0
		for _, stream := range []bool{false, true} {
			if status == 200 && !stream {
				continue
			}
			m := must(bedrock.NewFromConfig(testModel, bedrock.Options{Streaming: stream, Config: bedrock.Config{
				EndpointURL: srv.URL, MaxRetries: &retries, Headers: map[string]string{"X-Api-Key": "gw-Zk81QmP3vX7sT2nR"}}}))
			_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
			pe := modeltest.ProviderError(t, err, testSecret)
			want := status
			if status == 200 { // the exception event's status
				want = 400
			}
			if pe.StatusCode != want {
				t.Errorf("%d stream=%v: status %d", status, stream, pe.StatusCode)
			}
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", pe)} {
				if strings.Contains(s, testSecret) || strings.Contains(s, echoSecret) || strings.Contains(s, "gw-Zk81QmP3vX7sT2nR") {
					t.Errorf("%d stream=%v: a credential leaks: %s", status, stream, s)
				}
			}
			if !strings.Contains(pe.Message, model.Redacted) {
				t.Errorf("%d stream=%v: message %q", status, stream, pe.Message)
			}
		}
		srv.Close()
	}
}

// TestBinaryStreamIdleTimeout: HTTPPolicy's idle bound works on the binary
// event stream (progress is any bytes): a stream that stalls after its
// first events ends with idle_timeout, not retried.
func TestBinaryStreamIdleTimeout(t *testing.T) {
	f := newFake(t, reply{stream: true, file: "stream_cut.json", stall: true})
	m := f.modelWith(2, bedrock.Options{HTTPBounds: model.HTTPBounds{IdleTimeout: 150 * time.Millisecond}})
	h, ds := collect()
	_, err := m.Stream(context.Background(), ask("Hi"), model.Params{}, h)
	if pe := modeltest.ProviderError(t, err, testSecret); pe.Code != "idle_timeout" || f.Requests() != 1 || len(*ds) != 1 {
		t.Fatalf("%+v after %d requests, %d deltas", *pe, f.Requests(), len(*ds))
	}
}

// TestSlowStreamWithinIdleBound: a stream whose events come slower than
// nothing but faster than the idle bound completes.
func TestSlowStreamWithinIdleBound(t *testing.T) {
	evs := eventsFixture(t, "stream_text.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.WriteHeader(200)
		enc := eventstream.NewEncoder()
		for _, ev := range evs {
			_ = enc.Encode(w, frame(ev))
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond) // the pace of a slow model, under the bound
		}
	}))
	defer srv.Close()
	isolate(t)
	m := must(bedrock.NewFromConfig(testModel, bedrock.Options{HTTPBounds: model.HTTPBounds{IdleTimeout: 400 * time.Millisecond}, Config: bedrock.Config{
		Region: "us-east-1", EndpointURL: srv.URL, AccessKeyID: testAccessKey, SecretAccessKey: testSecret}}))
	got, err := m.Stream(context.Background(), ask("Hi"), model.Params{}, func(model.Delta) {})
	if err != nil || got.Text() != "Hello! How can I help you today?" {
		t.Fatalf("%q, %v", got.Text(), err)
	}
}
