package bedrock_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// TestEndpointFromEnvironment: the AWS chain alone (region, credentials
// and AWS_ENDPOINT_URL_BEDROCK_RUNTIME from the environment) reaches the
// fake, and the request is signed for that region.
func TestEndpointFromEnvironment(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	isolate(t)
	t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	t.Setenv("AWS_REGION", "eu-west-3")
	t.Setenv(bedrock.EnvEndpointURL, f.URL)
	m := must(bedrock.NewFromConfig(testModel, bedrock.Options{}))
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if a := f.Request(0).Header.Get("Authorization"); !strings.Contains(a, "/eu-west-3/bedrock/aws4_request") {
		t.Fatalf("Authorization = %q", a)
	}
}

// TestEndpointFromProfile: the shared config and credentials files of a
// named profile give the region and the credentials; Config.EndpointURL
// wins over the environment's endpoint.
func TestProfileAndEndpointURL(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	isolate(t)
	dir := t.TempDir()
	writeFile(t, dir+"/config", "[profile work]\nregion = ap-south-1\n")
	writeFile(t, dir+"/credentials", "[work]\naws_access_key_id = "+testAccessKey+"\naws_secret_access_key = "+testSecret+"\n")
	t.Setenv("AWS_CONFIG_FILE", dir+"/config")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", dir+"/credentials")
	t.Setenv(bedrock.EnvEndpointURL, "http://127.0.0.1:1")
	m := must(bedrock.NewFromConfig(testModel, bedrock.Options{Config: bedrock.Config{Profile: "work", EndpointURL: f.URL}}))
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if a := f.Request(0).Header.Get("Authorization"); !strings.Contains(a, "/ap-south-1/bedrock/aws4_request") {
		t.Fatalf("Authorization = %q", a)
	}
}

func TestMissingRegion(t *testing.T) {
	isolate(t)
	m := must(bedrock.NewFromConfig(testModel, bedrock.Options{Config: bedrock.Config{AccessKeyID: testAccessKey, SecretAccessKey: testSecret}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if !errors.Is(err, bedrock.ErrMissingRegion) || !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Fatalf("err = %v", err)
	}
}

// TestMissingCredentials: with no credentials anywhere (and no instance
// role), the request fails before it is sent, naming the variables.
func TestMissingCredentials(t *testing.T) {
	f := newFake(t)
	isolate(t)
	m := must(bedrock.NewFromConfig(testModel, bedrock.Options{Config: bedrock.Config{Region: "us-east-1", EndpointURL: f.URL}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testSecret)
	if pe.Code != "credentials_error" || !strings.Contains(pe.Message, "AWS_ACCESS_KEY_ID") || f.Requests() != 0 {
		t.Fatalf("%+v after %d requests", *pe, f.Requests())
	}
}

func TestInvalidOptions(t *testing.T) {
	neg := -1
	for name, c := range map[string]struct {
		name string
		o    bedrock.Options
	}{
		"empty name":      {"", bedrock.Options{}},
		"negative tokens": {testModel, bedrock.Options{MaxTokens: -1}},
		"negative retry":  {testModel, bedrock.Options{Config: bedrock.Config{MaxRetries: &neg}}},
		"half a key":      {testModel, bedrock.Options{Config: bedrock.Config{AccessKeyID: testAccessKey}}},
		"token alone":     {testModel, bedrock.Options{Config: bedrock.Config{SessionToken: "x"}}},
	} {
		if _, err := bedrock.NewFromConfig(c.name, c.o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	client := bedrockruntime.New(bedrockruntime.Options{Region: "us-east-1"})
	if _, err := bedrock.New(client, testModel, bedrock.Options{Config: bedrock.Config{Region: "us-east-1"}}); err == nil {
		t.Error("New accepted a Config")
	}
}

// TestNewOverCallersClient: New sends through the caller's client (its
// endpoint, credentials and HTTP client), under the model's bounds, and
// headers of the settings reach the server.
func TestNewOverCallersClient(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	var used bool
	client := bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-west-2",
		BaseEndpoint: aws.String(f.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecret, ""),
		HTTPClient:   doerFunc(func(r *http.Request) (*http.Response, error) { used = true; return http.DefaultClient.Do(r) }),
	})
	m := must(bedrock.New(client, testModel, bedrock.Options{}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{Settings: model.Settings{ExtraHeaders: map[string]string{"X-Trace": "t-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !used || f.Request(0).Header.Get("X-Trace") != "t-1" {
		t.Fatalf("used = %v, headers %v", used, f.Request(0).Header)
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (d doerFunc) Do(r *http.Request) (*http.Response, error) { return d(r) }

// TestAPIKey: a Bedrock API key is sent as a bearer token instead of a
// signature, and masked in errors.
func TestAPIKey(t *testing.T) {
	const key = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleQ=="
	var auth string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		io.WriteString(w, `{"message":"invalid key `+key+`"}`)
	}))
	defer srv.Close()
	isolate(t)
	retries := 0
	m := must(bedrock.NewFromConfig(testModel, bedrock.Options{Config: bedrock.Config{Region: "us-east-1", EndpointURL: srv.URL, APIKey: key, MaxRetries: &retries, HTTPClient: srv.Client()}}))
	_, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testSecret)
	if auth != "Bearer "+key || pe.StatusCode != 403 || strings.Contains(err.Error(), key) {
		t.Fatalf("Authorization %q, error %v", auth, err)
	}
}
