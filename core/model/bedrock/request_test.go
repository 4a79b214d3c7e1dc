package bedrock_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/tool"
)

func ptr[T any](v T) *T { return &v }

// send makes one request over a fresh fake and returns its decoded body.
func send(t *testing.T, o bedrock.Options, messages []model.Message, params model.Params) map[string]any {
	t.Helper()
	f := newFake(t, reply{file: "text.json"})
	if _, err := f.modelWith(0, o).Request(context.Background(), messages, params); err != nil {
		t.Fatal(err)
	}
	return f.body(0)
}

// TestRequestMapping: system prompts and instructions, tools with their
// schemas, settings as inferenceConfig, a specific tool choice, extra body
// keys as additionalModelRequestFields.
func TestRequestMapping(t *testing.T) {
	msgs := []model.Message{{Kind: model.KindRequest, Instructions: "Be brief.", Parts: []model.Part{
		model.SystemPrompt("You are a DJ."), model.UserPrompt("Top song?")}}}
	params := model.Params{
		Tools: []tool.Definition{{Name: "top_song", Description: "Most played song", Strict: ptr(true), Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"sign": map[string]any{"type": "string", "maxLength": 4}}, "required": []any{"sign"}}}},
		Settings: model.Settings{MaxTokens: ptr(300), Temperature: ptr(0.5), TopP: ptr(0.9), Stop: []string{"END"}, Seed: ptr(int64(3)),
			ToolChoice: "top_song", ExtraBody: map[string]any{"top_k": 200}},
	}
	body := send(t, bedrock.Options{}, msgs, params)
	want := map[string]string{
		"system":                       `[{"text":"You are a DJ."},{"text":"Be brief."}]`,
		"messages":                     `[{"content":[{"text":"Top song?"}],"role":"user"}]`,
		"inferenceConfig":              `{"maxTokens":300,"stopSequences":["END"],"temperature":0.5,"topP":0.9}`,
		"toolConfig":                   `{"toolChoice":{"tool":{"name":"top_song"}},"tools":[{"toolSpec":{"description":"Most played song","inputSchema":{"json":{"properties":{"sign":{"maxLength":4,"type":"string"}},"required":["sign"],"type":"object"}},"name":"top_song","strict":true}}]}`,
		"additionalModelRequestFields": `{"top_k":200}`,
	}
	for k, w := range want {
		if got := string(mustJSON(t, body[k])); got != w {
			t.Errorf("%s = %s\nwant %s", k, got, w)
		}
	}
	if _, ok := body["outputConfig"]; ok {
		t.Error("outputConfig sent without a native output")
	}
}

func TestToolChoiceAndDefaults(t *testing.T) {
	tools := []tool.Definition{{Name: "a"}}
	for choice, want := range map[string]string{"": `null`, "auto": `null`, "required": `{"any":{}}`} {
		body := send(t, bedrock.Options{MaxTokens: 1024}, ask("Hi"), model.Params{Tools: tools, Settings: model.Settings{ToolChoice: choice}})
		tc := body["toolConfig"].(map[string]any)
		if got := string(mustJSON(t, tc["toolChoice"])); got != want {
			t.Errorf("%q: toolChoice = %s, want %s", choice, got, want)
		}
		if got := string(mustJSON(t, tc["tools"])); got != `[{"toolSpec":{"inputSchema":{"json":{"properties":{},"type":"object"}},"name":"a"}}]` {
			t.Errorf("tools = %s", got)
		}
		if got := string(mustJSON(t, body["inferenceConfig"])); got != `{"maxTokens":1024}` {
			t.Errorf("inferenceConfig = %s (Options.MaxTokens)", got)
		}
	}
	// "none": no tools are offered while the history holds no tool blocks.
	body := send(t, bedrock.Options{}, ask("Hi"), model.Params{Tools: tools, Settings: model.Settings{ToolChoice: "none"}})
	if _, ok := body["toolConfig"]; ok {
		t.Errorf("toolConfig sent for tool_choice none: %v", body["toolConfig"])
	}
	m := newFake(t).model(0)
	_, err := m.Request(context.Background(), toolHistory(tool.Return{ToolCallID: "c1", Name: "a", Content: "ok"}), model.Params{Tools: tools, Settings: model.Settings{ToolChoice: "none"}})
	if err == nil || !strings.Contains(err.Error(), `tool_choice "none"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestNativeOutput: a native Output is sent as outputConfig.textFormat
// with the schema as JSON text; the answer is the response text.
func TestNativeOutput(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	body := send(t, bedrock.Options{}, ask("Where?"), model.Params{Output: &model.Output{Mode: model.OutputNative, Name: "place", Description: "A place", Schema: schema}})
	got := string(mustJSON(t, body["outputConfig"]))
	want := `{"textFormat":{"structure":{"jsonSchema":{"description":"A place","name":"place","schema":"{\"properties\":{\"city\":{\"type\":\"string\"}},\"type\":\"object\"}"}},"type":"json_schema"}}`
	if got != want {
		t.Fatalf("outputConfig = %s\nwant %s", got, want)
	}
	_, err := newFake(t).model(0).Request(context.Background(), ask("Where?"), model.Params{Output: &model.Output{Mode: model.OutputNative, Name: "place"}})
	if err == nil || !strings.Contains(err.Error(), "without a schema") {
		t.Fatalf("err = %v", err)
	}
}

// toolHistory is a request, a response calling tool a (call c1), and the
// request answering it with ret.
func toolHistory(rets ...tool.Return) []model.Message {
	parts := make([]model.Part, len(rets))
	for i, r := range rets {
		parts[i] = model.ToolReturn(r)
	}
	resp := model.Response(model.TextPart("Calling."), model.ToolCallPart("c1", "a", json.RawMessage(`{"q": 1.50}`)))
	return append(ask("Go"), resp, model.Request(parts...))
}

// resultBlocks sends rets as the answer to a call and returns the
// toolResult blocks of the last user message.
func resultBlocks(t *testing.T, rets ...tool.Return) string {
	t.Helper()
	body := send(t, bedrock.Options{}, toolHistory(rets...), model.Params{Tools: []tool.Definition{{Name: "a"}}})
	msgs := body["messages"].([]any)
	return string(mustJSON(t, msgs[len(msgs)-1].(map[string]any)["content"]))
}

func TestToolRoundTrip(t *testing.T) {
	body := send(t, bedrock.Options{}, toolHistory(tool.Return{ToolCallID: "c1", Name: "a", Content: "sunny"}), model.Params{Tools: []tool.Definition{{Name: "a"}}})
	got := string(mustJSON(t, body["messages"]))
	want := `[{"content":[{"text":"Go"}],"role":"user"},` +
		`{"content":[{"text":"Calling."},{"toolUse":{"input":{"q":1.50},"name":"a","toolUseId":"c1"}}],"role":"assistant"},` +
		`{"content":[{"toolResult":{"content":[{"text":"sunny"}],"status":"success","toolUseId":"c1"}}],"role":"user"}]`
	if got != want {
		t.Fatalf("messages = %s\nwant %s", got, want)
	}
}

func TestToolResultContent(t *testing.T) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG fake"))
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.7 fake"))
	for name, c := range map[string]struct {
		ret  tool.Return
		want string
	}{
		"json object": {tool.Return{ToolCallID: "c1", Content: map[string]any{"temp": 21.5, "unit": "C"}},
			`[{"toolResult":{"content":[{"json":{"temp":21.5,"unit":"C"}}],"status":"success","toolUseId":"c1"}}]`},
		"raw json": {tool.Return{ToolCallID: "c1", Content: json.RawMessage(`{"n": 12345678901234567890}`)},
			`[{"toolResult":{"content":[{"json":{"n":12345678901234567890}}],"status":"success","toolUseId":"c1"}}]`},
		"json list as text": {tool.Return{ToolCallID: "c1", Content: []any{1, 2}},
			`[{"toolResult":{"content":[{"text":"[1,2]"}],"status":"success","toolUseId":"c1"}}]`},
		"error": {tool.Return{ToolCallID: "c1", Content: "boom", IsError: true},
			`[{"toolResult":{"content":[{"text":"boom"}],"status":"error","toolUseId":"c1"}}]`},
		"empty": {tool.Return{ToolCallID: "c1"},
			`[{"toolResult":{"content":[{"text":" "}],"status":"success","toolUseId":"c1"}}]`},
		"image, document, link": {tool.Return{ToolCallID: "c1", Name: "a", Parts: []tool.Part{
			tool.TextPart("see"),
			{Kind: tool.PartImage, Source: &tool.MediaSource{Kind: tool.SourceBase64, MediaType: "image/png", Data: png}},
			{Kind: tool.PartDocument, Name: "Q3 report.pdf", Source: &tool.MediaSource{Kind: tool.SourceBase64, MediaType: "application/pdf", Data: pdf}},
			tool.ResourceLinkPart(tool.ResourceLink{URI: "file:///a.txt", Name: "a.txt"}),
		}},
			`[{"toolResult":{"content":[{"text":"see"},{"image":{"format":"png","source":{"bytes":"` + png + `"}}},` +
				`{"document":{"format":"pdf","name":"Q3 report pdf","source":{"bytes":"` + pdf + `"}}},` +
				`{"text":"{\"kind\":\"resource_link\",\"name\":\"a.txt\",\"uri\":\"file:///a.txt\"}"}],"status":"success","toolUseId":"c1"}}]`},
	} {
		if got := resultBlocks(t, c.ret); got != c.want {
			t.Errorf("%s: %s\nwant %s", name, got, c.want)
		}
	}
	// Every document format Converse reads.
	for mt, format := range map[string]string{"text/csv": "csv", "application/msword": "doc", "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
		"application/vnd.ms-excel": "xls", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx", "text/html": "html", "text/plain": "txt", "text/markdown": "md"} {
		got := resultBlocks(t, tool.Return{ToolCallID: "c1", Parts: []tool.Part{tool.DocumentPart(tool.Base64Source(mt, []byte("x")), "")}})
		if !strings.Contains(got, `"format":"`+format+`","name":"document 1"`) {
			t.Errorf("%s: %s", mt, got)
		}
	}
}

// TestToolResultRefusals: what Converse cannot carry fails the request
// with an error naming the kind, before anything is sent.
func TestToolResultRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		part tool.Part
		want string
	}{
		"audio":     {tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))), "returned audio"},
		"image url": {tool.ImagePart(tool.URLSource("https://example.com/a.png", "image/png")), "image part with a URL source (https://example.com/a.png)"},
		"doc url":   {tool.DocumentPart(tool.URLSource("https://example.com/a.pdf", ""), "a"), "document part with a URL source"},
		"bmp":       {tool.ImagePart(tool.Base64Source("image/bmp", []byte("BM"))), "image/bmp"},
		"zip":       {tool.DocumentPart(tool.Base64Source("application/zip", []byte("PK")), "a"), "application/zip"},
	} {
		f := newFake(t)
		_, err := f.model(0).Request(context.Background(), toolHistory(tool.Return{ToolCallID: "c1", Name: "a", Parts: []tool.Part{c.part}}), model.Params{Tools: []tool.Definition{{Name: "a"}}})
		if err == nil || !strings.Contains(err.Error(), c.want) || f.Requests() != 0 {
			t.Errorf("%s: err = %v after %d requests", name, err, f.Requests())
		}
	}
}

// TestHistoryMapping: consecutive requests merge into one user message,
// tool results first; retry prompts become error results; another
// provider's thinking and unsigned thinking are not sent; refusals neither.
func TestHistoryMapping(t *testing.T) {
	msgs := []model.Message{
		model.Request(model.UserPrompt("Go")),
		model.Response(model.ThinkingPart("hmm", model.Thinking{Provider: "anthropic", Signature: "s"}), model.ThinkingPart("unsigned", model.Thinking{Provider: "bedrock"}),
			model.ToolCallPart("c1", "a", json.RawMessage(`not json`)), model.ToolCallPart("c2", "a", nil), model.RefusalPart("no")),
		model.Request(model.RetryPrompt("bad arguments", "c1")),
		model.Request(model.ToolReturn(tool.Return{ToolCallID: "c2", Content: "ok"}), model.UserPrompt("and?"), model.RetryPrompt("plain", "")),
	}
	body := send(t, bedrock.Options{}, msgs, model.Params{Tools: []tool.Definition{{Name: "a"}}})
	got := string(mustJSON(t, body["messages"]))
	want := `[{"content":[{"text":"Go"}],"role":"user"},` +
		`{"content":[{"toolUse":{"input":{},"name":"a","toolUseId":"c1"}},{"toolUse":{"input":{},"name":"a","toolUseId":"c2"}}],"role":"assistant"},` +
		`{"content":[{"toolResult":{"content":[{"text":"bad arguments"}],"status":"error","toolUseId":"c1"}},{"toolResult":{"content":[{"text":"ok"}],"status":"success","toolUseId":"c2"}},{"text":"and?"},{"text":"plain"}],"role":"user"}]`
	if got != want {
		t.Fatalf("messages = %s\nwant %s", got, want)
	}
}
