package google_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// The conformance suite over a fake of the Gemini API, built from the
// shapes of its reference (https://ai.google.dev/api/generate-content):
// the GenerateContentRequest (contents of user and model turns, parts with
// text, functionCall, functionResponse and its multimodal parts,
// tools[].functionDeclarations, generationConfig), the
// GenerateContentResponse (candidates, finishReason, usageMetadata), the
// streamed chunks of streamGenerateContent?alt=sse, and the error body of
// Google APIs {"error":{code,message,status}}.

func TestConformance(t *testing.T) {
	modeltest.Run(t, modeltest.Provider{
		Name:    google.ProviderName,
		NewFake: func(t *testing.T) modeltest.Fake { return modeltest.NewHTTPFake(t, geminiWire{}) },
		NewModel: func(t *testing.T, url string, o modeltest.Options) model.Model {
			retries := o.MaxRetries
			return must(google.NewFromConfig("gemini-2.5-flash", google.Options{
				Config:     google.Config{APIKey: o.APIKey, BaseURL: url, MaxRetries: &retries, Headers: o.Headers, Timeout: o.Timeout},
				Streaming:  o.Streaming,
				HTTPBounds: o.HTTPBounds,
			}))
		},
		NativeOutput: true, // responseMimeType + responseJsonSchema
		// Multimodal function responses take images and documents inline
		// (the Gemini API has no fileData there); no audio.
		Carries:  map[string]bool{"text": true, "image": true, "document": true, "resource_link": true},
		NoURL:    map[string]bool{"image": true, "document": true},
		Usage:    []string{modeltest.UsageInput, modeltest.UsageOutput, modeltest.UsageCacheRead, modeltest.UsageReasoning},
		Thinking: true,
	})
}

// geminiWire is the Gemini API: POST /v1beta/models/{model}:generateContent
// and :streamGenerateContent?alt=sse.
type geminiWire struct{}

type wirePart struct {
	Text             string `json:"text"`
	Thought          bool   `json:"thought"`
	ThoughtSignature []byte `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string                     `json:"id"`
		Name     string                     `json:"name"`
		Response map[string]json.RawMessage `json:"response"`
		Parts    []struct {
			InlineData *struct {
				MIMEType string `json:"mimeType"`
				Data     []byte `json:"data"`
			} `json:"inlineData"`
		} `json:"parts"`
	} `json:"functionResponse"`
}

func (geminiWire) Decode(r *http.Request, body []byte) (modeltest.Seen, error) {
	path, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	if !ok {
		return modeltest.Seen{}, fmt.Errorf("path %s, want /v1beta/models/...", r.URL.Path)
	}
	name, method, _ := strings.Cut(path, ":")
	s := modeltest.Seen{Model: name}
	switch method {
	case "generateContent":
	case "streamGenerateContent":
		if r.URL.Query().Get("alt") != "sse" {
			return s, fmt.Errorf("a stream without alt=sse")
		}
		s.Stream = true
	default:
		return s, fmt.Errorf("method %q", method)
	}
	if r.Header.Get("X-Goog-Api-Key") == "" {
		return s, fmt.Errorf("no x-goog-api-key header")
	}
	var req struct {
		Contents []struct {
			Role  string     `json:"role"`
			Parts []wirePart `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string         `json:"name"`
				ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		GenerationConfig struct {
			ResponseMIMEType   string         `json:"responseMimeType"`
			ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return s, err
	}
	if len(req.Contents) == 0 {
		return s, fmt.Errorf("no contents")
	}
	for _, tl := range req.Tools {
		for _, d := range tl.FunctionDeclarations {
			if d.ParametersJSONSchema == nil {
				return s, fmt.Errorf("function %q without parametersJsonSchema", d.Name)
			}
			s.Tools = append(s.Tools, d.Name)
		}
	}
	gc := req.GenerationConfig
	s.NativeOutput = gc.ResponseMIMEType == "application/json" && gc.ResponseJSONSchema != nil
	for i, c := range req.Contents {
		if i > 0 && c.Role == req.Contents[i-1].Role {
			return s, fmt.Errorf("two %s turns in a row", c.Role)
		}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil && c.Role == "model":
				s.Calls = append(s.Calls, modeltest.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Args})
			case p.FunctionResponse != nil && c.Role == "user":
				res, err := functionResponse(p)
				if err != nil {
					return s, err
				}
				s.Results = append(s.Results, res)
			case p.FunctionCall != nil || p.FunctionResponse != nil:
				return s, fmt.Errorf("a function call or response in a %s turn", c.Role)
			}
		}
	}
	return s, nil
}

// functionResponse reads a functionResponse: response.output (or .error)
// and the inline data of its parts.
func functionResponse(p wirePart) (modeltest.Result, error) {
	fr := p.FunctionResponse
	if fr.Name == "" {
		return modeltest.Result{}, fmt.Errorf("a functionResponse without a name")
	}
	r := modeltest.Result{CallID: fr.ID, Name: fr.Name}
	v, ok := fr.Response["output"]
	if e, isErr := fr.Response["error"]; isErr {
		v, ok, r.IsError = e, true, true
	}
	if !ok {
		return r, fmt.Errorf("a functionResponse without output or error: %v", fr.Response)
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s != "" {
			r.Kinds, r.Text = append(r.Kinds, modeltest.KindText), s
		}
	} else {
		r.Kinds, r.Text = append(r.Kinds, modeltest.KindJSON), string(v)
	}
	for _, fp := range fr.Parts {
		if fp.InlineData == nil || len(fp.InlineData.Data) == 0 {
			return r, fmt.Errorf("a functionResponse part without inline data")
		}
		switch mt := fp.InlineData.MIMEType; {
		case strings.HasPrefix(mt, "image/"):
			r.Kinds = append(r.Kinds, modeltest.KindImage)
		case mt == "application/pdf" || strings.HasPrefix(mt, "text/"):
			r.Kinds = append(r.Kinds, modeltest.KindDocument)
		case strings.HasPrefix(mt, "audio/"):
			r.Kinds = append(r.Kinds, modeltest.KindAudio)
		default:
			return r, fmt.Errorf("inline data of type %q", mt)
		}
	}
	return r, nil
}

func (geminiWire) Error(w http.ResponseWriter, tn modeltest.Turn) {
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"code": tn.Status, "message": tn.Message, "status": tn.Code},
	})
}

func finishReasonOf(tn modeltest.Turn) string {
	switch modeltest.FinishOf(tn) {
	case model.FinishLength:
		return "MAX_TOKENS"
	case model.FinishContentFilter:
		return "SAFETY"
	}
	return "STOP" // a response with function calls stops with STOP too
}

// usageOf is the usageMetadata of u: candidatesTokenCount excludes the
// thoughts, promptTokenCount includes the cached tokens.
func usageOf(u model.Usage) map[string]any {
	return map[string]any{
		"promptTokenCount":        u.InputTokens,
		"cachedContentTokenCount": u.CacheReadTokens,
		"candidatesTokenCount":    u.OutputTokens - u.ReasoningTokens,
		"thoughtsTokenCount":      u.ReasoningTokens,
		"totalTokenCount":         u.InputTokens + u.OutputTokens,
	}
}

func response(s modeltest.Seen, parts []map[string]any, finish string, usage map[string]any) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": s.Model, "responseId": "resp-conformance"}
	if usage != nil {
		r["usageMetadata"] = usage
	}
	return r
}

const thoughtSignature = "c2lnbmF0dXJlLW9mLXRoZS1maXJzdC1jYWxs"

func callPart(c modeltest.Call, first bool) map[string]any {
	p := map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": c.Arguments}}
	if first {
		p["thoughtSignature"] = thoughtSignature
	}
	return p
}

func (geminiWire) Answer(w http.ResponseWriter, s modeltest.Seen, tn modeltest.Turn) {
	finish := finishReasonOf(tn)
	if !s.Stream {
		var parts []map[string]any
		if tn.Thinking != "" {
			parts = append(parts, map[string]any{"text": tn.Thinking, "thought": true})
		}
		if tn.Text != "" {
			parts = append(parts, map[string]any{"text": tn.Text})
		}
		for i, c := range tn.Calls {
			parts = append(parts, callPart(c, i == 0))
		}
		modeltest.WriteJSON(w, response(s, parts, finish, usageOf(tn.Usage)))
		return
	}
	// One chunk per piece of thought and text, one per function call (the
	// API sends calls whole); the last chunk carries the finish reason and
	// the usage.
	var chunks [][]map[string]any
	for _, p := range modeltest.Pieces(tn.Thinking, 9) {
		chunks = append(chunks, []map[string]any{{"text": p, "thought": true}})
	}
	for _, p := range modeltest.Pieces(tn.Text, 7) {
		chunks = append(chunks, []map[string]any{{"text": p}})
	}
	for i, c := range tn.Calls {
		chunks = append(chunks, []map[string]any{callPart(c, i == 0)})
	}
	if len(chunks) == 0 {
		chunks = append(chunks, []map[string]any{{"text": ""}})
	}
	sse := modeltest.StartSSE(w)
	for i, parts := range chunks {
		if i == len(chunks)-1 {
			sse.Event("", response(s, parts, finish, usageOf(tn.Usage)))
		} else {
			sse.Event("", response(s, parts, "", nil))
		}
	}
}
