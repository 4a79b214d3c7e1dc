package google

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// capture is a server that records the last request and answers body.
type capture struct {
	srv  *httptest.Server
	mu   sync.Mutex
	path string
	body []byte
}

func newCapture(t *testing.T, answer []byte) *capture {
	c := &capture{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.path, c.body = r.URL.Path, b
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *capture) last() (string, []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.path, c.body
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func sdkConfig(req *wireRequest) *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{
		AutomaticContinuation: genai.Ptr(false),
		SystemInstruction:     req.SystemInstruction,
		Tools:                 req.Tools,
		ToolConfig:            req.ToolConfig,
	}
	if gc := req.GenerationConfig; gc != nil {
		cfg.Temperature, cfg.TopP, cfg.MaxOutputTokens, cfg.StopSequences, cfg.Seed = gc.Temperature, gc.TopP, gc.MaxOutputTokens, gc.StopSequences, gc.Seed
		cfg.ResponseMIMEType, cfg.ResponseJsonSchema, cfg.ThinkingConfig = gc.ResponseMIMEType, gc.ResponseJSONSchema, gc.ThinkingConfig
	}
	return cfg
}

// The body and the URL the model sends are the ones the SDK's own path
// sends for the same contents and config, on both backends.
func TestEncodingMatchesTheSDK(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "text.json"))
	if err != nil {
		t.Fatal(err)
	}
	temp, topP, maxTok, seed := 0.5, 0.875, 512, int64(7)
	png := tool.Base64Source("image/png", []byte("\x89PNG"))
	history := []model.Message{
		model.Request(model.SystemPrompt("Be brief."), model.UserPrompt("Weather <Paris> & London?")),
		model.Response(
			model.ThinkingPart("thought", model.Thinking{Provider: ProviderName, Signature: "c2ln"}),
			model.TextPart("Checking."),
			model.ThinkingPart("", model.Thinking{Provider: ProviderName, Signature: "c2lnLTI="}),
			model.ToolCallPart("fc-1", "get_weather", json.RawMessage(`{"city":"Paris","days":[1,2.5]}`)),
			model.ToolCallPart(generatedIDPrefix+"r-1", "get_weather", json.RawMessage(`{"city":"London"}`))),
		model.Request(
			model.ToolReturn(tool.Return{ToolCallID: "fc-1", Name: "get_weather", Content: map[string]any{"temp": 18}}),
			model.ToolReturn(tool.Return{ToolCallID: generatedIDPrefix + "r-1", Name: "get_weather", Content: "see", Parts: []tool.Part{
				tool.TextPart("the chart"), tool.ImagePart(png), tool.DocumentPart(tool.Base64Source("application/pdf", []byte("%PDF")), "r.pdf")}}),
			model.RetryPrompt("again", "")),
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}
	params := []model.Params{
		{},
		{
			Tools:    []tool.Definition{{Name: "get_weather", Description: "Weather", Parameters: schema}, {Name: "noop"}},
			Settings: model.Settings{Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, Seed: &seed, Stop: []string{"END"}, ToolChoice: "get_weather"},
		},
		{Output: &model.Output{Mode: model.OutputNative, Name: "City", Schema: schema}},
	}
	for _, vertex := range []bool{false, true} {
		for _, name := range []string{"gemini-2.5-flash", "models/gemini-2.5-pro", "tunedModels/t-1", "publishers/google/models/g", "google/gemini-x"} {
			if !vertex && strings.Count(name, "/") > 1 || !vertex && strings.HasPrefix(name, "google/") {
				continue
			}
			c := newCapture(t, answer)
			cc := &genai.ClientConfig{APIKey: "AIza-test-key", Backend: genai.BackendGeminiAPI, HTTPClient: c.srv.Client(),
				HTTPOptions: genai.HTTPOptions{BaseURL: c.srv.URL, APIVersion: DefaultGeminiAPIVersion}}
			if vertex {
				cc = &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "p-1", Location: "europe-west4", HTTPClient: c.srv.Client(),
					HTTPOptions: genai.HTTPOptions{BaseURL: c.srv.URL, APIVersion: DefaultVertexAPIVersion}}
			}
			client, err := genai.NewClient(context.Background(), cc)
			if err != nil {
				t.Fatal(err)
			}
			m, err := New(client, name, Options{ThinkingBudget: 128, IncludeThoughts: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range params {
				if _, err := m.Request(context.Background(), history, p); err != nil {
					t.Fatal(err)
				}
				ourPath, ourBody := c.last()
				req, err := m.buildRequest(history, p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := client.Models.GenerateContent(context.Background(), name, req.Contents, sdkConfig(req)); err != nil {
					t.Fatal(err)
				}
				sdkPath, sdkBody := c.last()
				if ourPath != sdkPath {
					t.Errorf("vertex=%v %s: path %s, the SDK's %s", vertex, name, ourPath, sdkPath)
				}
				if a, b := decodeJSON(t, ourBody), decodeJSON(t, sdkBody); !reflect.DeepEqual(a, b) {
					t.Errorf("vertex=%v %s params %d: body\n%s\nthe SDK's\n%s", vertex, name, i, ourBody, sdkBody)
				}
			}
		}
	}
}

// Decoding a response into the SDK's type gives what the SDK's own path
// gives, for every fixture.
func TestDecodingMatchesTheSDK(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		if strings.HasPrefix(filepath.Base(file), "error_") {
			continue
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c := newCapture(t, raw)
		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
			HTTPClient: c.srv.Client(), HTTPOptions: genai.HTTPOptions{BaseURL: c.srv.URL}})
		if err != nil {
			t.Fatal(err)
		}
		sdk, err := client.Models.GenerateContent(context.Background(), "g", []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
			&genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)})
		if err != nil {
			t.Fatal(err)
		}
		sdk.SDKHTTPResponse = nil
		var ours genai.GenerateContentResponse
		if err := json.Unmarshal(raw, &ours); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sdk, &ours) {
			a, _ := json.Marshal(sdk)
			b, _ := json.Marshal(&ours)
			t.Errorf("%s: the SDK decodes\n%s\nthe model\n%s", file, a, b)
		}
	}
}

// The event reader reads a stream whatever its line endings and split
// points, ignores comments, and never panics on what a server sends.
func FuzzReadStream(f *testing.F) {
	for _, name := range []string{"stream_text.sse", "stream_calls.sse", "stream_error.sse", "stream_cut.sse"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add([]byte(strings.ReplaceAll(string(b), "\r\n", "\n")))
		f.Add([]byte(": keep-alive\n\n" + strings.ReplaceAll(string(b), "data: ", "event: x\ndata:")))
	}
	m := newModel("g", Options{}, model.NewHTTPPolicy(model.HTTPBounds{}, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a assembler
		if err := m.readStream(strings.NewReader(string(b)), &a); err == nil {
			if _, err := m.message(&a); err != nil && !strings.Contains(err.Error(), "google") {
				t.Fatal(err)
			}
		}
	})
}

func TestReadStreamVariants(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "stream_calls.sse"))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel("g", Options{}, model.NewHTTPPolicy(model.HTTPBounds{}, 0))
	want := ""
	for i, s := range []string{
		string(b),
		strings.ReplaceAll(string(b), "\r\n", "\n"),
		": keep-alive\n\n" + strings.ReplaceAll(string(b), "data: ", ": c\nid: 1\ndata:"),
		strings.TrimRight(string(b), "\r\n"), // no blank line after the last event
	} {
		var a assembler
		if err := m.readStream(strings.NewReader(s), &a); err != nil {
			t.Fatalf("variant %d: %v", i, err)
		}
		msg, err := m.message(&a)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(msg)
		if i == 0 {
			want = string(got)
		} else if string(got) != want {
			t.Errorf("variant %d: %s\nwant %s", i, got, want)
		}
	}
}
