package google

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strings"

	"google.golang.org/genai"
)

// The wire. The genai SDK sends a request by converting its typed params
// to generic maps and back (JSON encoded and decoded twice each way), which
// costs about 250 µs of CPU per request, most of a request's cost; so the
// model builds the request body from the SDK's own types (Content, Part,
// Tool, ThinkingConfig...), whose JSON is the API's, posts it through the
// HTTP client the SDK's config resolved (its base URL, API version, key or
// credentials, headers), and decodes the response into the SDK's
// GenerateContentResponse. The SDK still resolves everything about where
// and how requests go (backend, environment, endpoints, Vertex AI's
// credentials); only the body's coding is this package's.

// wireRequest is the body of generateContent and streamGenerateContent
// (GenerateContentRequest), on both backends.
type wireRequest struct {
	Contents          []*genai.Content  `json:"contents"`
	SystemInstruction *genai.Content    `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool     `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

// generationConfig is the part of GenerationConfig the model sets.
type generationConfig struct {
	Temperature        *float32              `json:"temperature,omitempty"`
	TopP               *float32              `json:"topP,omitempty"`
	MaxOutputTokens    int32                 `json:"maxOutputTokens,omitempty"`
	StopSequences      []string              `json:"stopSequences,omitempty"`
	Seed               *int32                `json:"seed,omitempty"`
	ResponseMIMEType   string                `json:"responseMimeType,omitempty"`
	ResponseJSONSchema any                   `json:"responseJsonSchema,omitempty"`
	ThinkingConfig     *genai.ThinkingConfig `json:"thinkingConfig,omitempty"`
}

func (g *generationConfig) isZero() bool {
	return g.Temperature == nil && g.TopP == nil && g.MaxOutputTokens == 0 && g.StopSequences == nil && g.Seed == nil &&
		g.ResponseMIMEType == "" && g.ResponseJSONSchema == nil && g.ThinkingConfig == nil
}

// endpoint is where a model's requests go and what they carry besides
// their body, resolved once from the SDK's client config.
type endpoint struct {
	// url is the model's resource URL; the method (":generateContent")
	// follows it.
	url    string
	header http.Header
	// extraBody is the client's HTTPOptions.ExtraBody, merged into every
	// body.
	extraBody map[string]any
	vertex    bool
}

// newEndpoint resolves the URL of model name and the headers of its
// requests from cc, as the SDK does (its tModel and createAPIURL): on the
// Gemini API models/{name}, on Vertex AI publishers/google/models/{name}
// under projects/{project}/locations/{location} when the config names
// them.
func newEndpoint(cc genai.ClientConfig, name string) (endpoint, error) {
	base, err := url.Parse(cc.HTTPOptions.BaseURL)
	if err != nil || base.Scheme == "" {
		return endpoint{}, fmt.Errorf("google: invalid base URL %q", cc.HTTPOptions.BaseURL)
	}
	// The SDK drops a query or fragment of the base URL too.
	base.RawQuery, base.Fragment = "", ""
	e := endpoint{header: http.Header{}, extraBody: cc.HTTPOptions.ExtraBody, vertex: cc.Backend == genai.BackendVertexAI}
	path := name
	if e.vertex {
		switch {
		case strings.HasPrefix(name, "projects/") || strings.HasPrefix(name, "models/") || strings.HasPrefix(name, "publishers/"):
		case strings.Contains(name, "/"):
			publisher, model, _ := strings.Cut(name, "/")
			path = "publishers/" + publisher + "/models/" + model
		default:
			path = "publishers/google/models/" + name
		}
		if cc.Project != "" && cc.Location != "" && !strings.HasPrefix(path, "projects/") {
			path = "projects/" + cc.Project + "/locations/" + cc.Location + "/" + path
		}
	} else if !strings.HasPrefix(name, "models/") && !strings.HasPrefix(name, "tunedModels/") {
		path = "models/" + name
	}
	e.url = base.JoinPath(cc.HTTPOptions.APIVersion, path).String()
	for k, v := range cc.HTTPOptions.Headers {
		e.header[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
	e.header.Set("Content-Type", "application/json")
	client := "starweaver gl-go/" + runtime.Version()
	e.header.Add("X-Goog-Api-Client", client)
	if e.header.Get("User-Agent") == "" {
		e.header.Set("User-Agent", client)
	}
	if cc.APIKey != "" {
		e.header.Set("X-Goog-Api-Key", cc.APIKey)
	}
	return e, nil
}

// encode returns the JSON body of r, with the keys of extra (the client's,
// then the request's ExtraBody) merged into it recursively.
func encode(r *wireRequest, extra ...map[string]any) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil || (len(extra) == 0 || (len(extra[0]) == 0 && (len(extra) < 2 || len(extra[1]) == 0))) {
		return b, err
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, err
	}
	for _, e := range extra {
		merge(body, e)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// merge sets the keys of src in dst, merging the objects both hold.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if d, ok := dst[k].(map[string]any); ok {
				merge(d, sub)
				continue
			}
		}
		dst[k] = v
	}
}
