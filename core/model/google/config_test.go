package google_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/auth"
	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func TestMissingAPIKey(t *testing.T) {
	t.Setenv(google.EnvAPIKey, "")
	t.Setenv(google.EnvGeminiAPIKey, "")
	m, err := google.NewFromConfig("gemini-2.5-flash", google.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Request(context.Background(), ask("Hi"), model.Params{})
	if !errors.Is(err, google.ErrMissingAPIKey) || !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "GOOGLE_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

// GOOGLE_API_KEY wins over GEMINI_API_KEY; GOOGLE_GEMINI_BASE_URL names
// the server.
func TestEnvironmentKeyAndBaseURL(t *testing.T) {
	for _, c := range []struct{ google, gemini, want string }{
		{"google-key-0123456789", "gemini-key-0123456789", "google-key-0123456789"},
		{"", "gemini-key-0123456789", "gemini-key-0123456789"},
	} {
		f := newFake(t, reply{file: "text.json"})
		t.Setenv(google.EnvAPIKey, c.google)
		t.Setenv(google.EnvGeminiAPIKey, c.gemini)
		t.Setenv(google.EnvBaseURL, f.URL)
		m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{}))
		if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
			t.Fatal(err)
		}
		if got := f.Request(0).Header.Get("X-Goog-Api-Key"); got != c.want {
			t.Errorf("key = %q, want %q", got, c.want)
		}
	}
}

func TestInvalidOptionsAreErrors(t *testing.T) {
	neg := -1
	for name, c := range map[string]struct {
		name string
		o    google.Options
	}{
		"empty name":             {"", google.Options{}},
		"negative retries":       {"g", google.Options{Config: google.Config{MaxRetries: &neg}}},
		"negative timeout":       {"g", google.Options{Config: google.Config{Timeout: -time.Second}}},
		"budget":                 {"g", google.Options{ThinkingBudget: -2}},
		"no thinking, budget":    {"g", google.Options{NoThinking: true, ThinkingBudget: 10}},
		"project without vertex": {"g", google.Options{Config: google.Config{Project: "p"}}},
		"key and project":        {"g", google.Options{Config: google.Config{Vertex: true, APIKey: "k", Project: "p"}}},
	} {
		if _, err := google.NewFromConfig(c.name, c.o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := google.New(nil, "g", google.Options{}); err == nil {
		t.Error("New(nil): no error")
	}
}

type staticToken struct{}

func (staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: "ya29.test-token-0123456789", Type: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

// Vertex AI: the path names the project, location and publisher model, and
// the credentials authorise the request; the token never reaches an error.
func TestVertexAI(t *testing.T) {
	f := newFake(t, reply{file: "text.json"}, reply{status: 403, body: `{"error":{"code":403,"message":"denied for ya29.test-token-0123456789","status":"PERMISSION_DENIED"}}`})
	retries := 0
	creds := auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken{}})
	m := must(google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{
		Vertex: true, Project: "my-project", Location: "us-central1", BaseURL: f.URL, Credentials: creds, MaxRetries: &retries,
	}, Secrets: []string{"ya29.test-token-0123456789"}}))
	got, err := m.Request(context.Background(), ask("Hi"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "Paris is the capital of France." || got.Provider != google.VertexProviderName {
		t.Fatalf("text = %q, provider %q", got.Text(), got.Provider)
	}
	if u := f.Request(0).URL; !strings.HasPrefix(u, "/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent") {
		t.Fatalf("url = %s", u)
	}
	if h := f.Request(0).Header; h.Get("Authorization") != "Bearer ya29.test-token-0123456789" || h.Get("X-Goog-Api-Key") != "" {
		t.Fatalf("auth headers = %v", h)
	}
	_, err = m.Request(context.Background(), ask("Hi"), model.Params{})
	pe := modeltest.ProviderError(t, err, testKey)
	if pe.StatusCode != 403 || pe.Code != "PERMISSION_DENIED" || strings.Contains(pe.Message, "ya29.test") {
		t.Fatalf("provider error = %+v", *pe)
	}
}

// New copies a caller's client: its requests go through the policy (the
// bounds apply), and the caller's client is unchanged.
func TestNewOverACallersClient(t *testing.T) {
	f := newFake(t, reply{file: "text.json"}, reply{block: true})
	hc := &http.Client{}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: testKey, Backend: genai.BackendGeminiAPI, HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: f.URL, APIVersion: "v1beta"},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := must(google.New(client, "gemini-2.5-flash", google.Options{HTTPBounds: model.HTTPBounds{FirstByteTimeout: 100 * time.Millisecond}}))
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{}); err != nil {
		t.Fatal(err)
	}
	_, err = m.Request(context.Background(), ask("Hi"), model.Params{})
	if pe := modeltest.ProviderError(t, err, testKey); pe.Code != "first_byte_timeout" {
		t.Fatalf("provider error = %+v", *pe)
	}
	if hc.Transport != nil || client.ClientConfig().HTTPClient != hc {
		t.Fatal("the caller's client changed")
	}
	if _, err := google.New(client, "gemini-2.5-flash", google.Options{Config: google.Config{APIKey: "x"}}); err == nil {
		t.Fatal("New accepted a Config")
	}
}
