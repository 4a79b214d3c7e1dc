package google_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

var pngData = []byte("\x89PNG\r\n\x1a\nimg")

// answered is a conversation whose last request answers one call with res.
func answered(res tool.Result) []model.Message {
	ret := tool.SuccessReturn(tool.Call{ID: "fc-1", Name: "chart"}, res)
	return append(ask("Draw it"),
		model.Response(model.ToolCallPart("fc-1", "chart", nil)),
		model.Request(model.ToolReturn(ret)))
}

// Rich returns go as multimodal function responses: the text (resource
// links as their JSON) in response.output, images and documents as inline
// data in functionResponse.parts.
func TestRichToolResultsGoNatively(t *testing.T) {
	f := newFake(t, reply{file: "text.json"}, reply{file: "text.json"})
	m := f.model(0)
	size := int64(7)
	res := tool.Rich(
		tool.TextPart("Sales chart:"),
		tool.ImagePart(tool.Base64Source("image/png", pngData)),
		tool.DocumentPart(tool.Base64Source("application/pdf", []byte("%PDF-1.7")), "report.pdf"),
		tool.DocumentPart(tool.Base64Source("text/plain", []byte("plain notes")), ""),
		tool.ResourceLinkPart(tool.ResourceLink{URI: "https://x.test/d.csv", Name: "d.csv", Size: &size}),
	)
	if _, err := m.Request(context.Background(), answered(res), model.Params{}); err != nil {
		t.Fatal(err)
	}
	contents := f.Body(0)["contents"].([]any)
	want := `{"parts":[{"functionResponse":{"id":"fc-1","name":"chart",` +
		`"parts":[` +
		`{"inlineData":{"data":"iVBORw0KGgppbWc=","mimeType":"image/png"}},` +
		`{"inlineData":{"data":"JVBERi0xLjc=","displayName":"report.pdf","mimeType":"application/pdf"}},` +
		`{"inlineData":{"data":"cGxhaW4gbm90ZXM=","mimeType":"text/plain"}}],` +
		`"response":{"output":"Sales chart:\n{\"kind\":\"resource_link\",\"name\":\"d.csv\",\"uri\":\"https://x.test/d.csv\",\"size\":7}"}}}],"role":"user"}`
	if got := jsonOf(t, contents[2]); got != want {
		t.Fatalf("function response =\n%s\nwant\n%s", got, want)
	}

	// A model error goes as response.error.
	if _, err := m.Request(context.Background(), answered(tool.ModelError(tool.TextPart("no such city"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	want = `{"parts":[{"functionResponse":{"id":"fc-1","name":"chart","response":{"error":"no such city"}}}],"role":"user"}`
	if got := jsonOf(t, f.Body(1)["contents"].([]any)[2]); got != want {
		t.Fatalf("model error =\n%s\nwant\n%s", got, want)
	}
}

// JSON content goes as its value.
func TestJSONToolResult(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	ret := tool.Return{ToolCallID: "fc-1", Name: "chart", Content: map[string]any{"rows": []any{1, 2}}}
	history := append(ask("Draw it"), model.Response(model.ToolCallPart("fc-1", "chart", nil)), model.Request(model.ToolReturn(ret)))
	if _, err := f.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	want := `{"parts":[{"functionResponse":{"id":"fc-1","name":"chart","response":{"output":{"rows":[1,2]}}}}],"role":"user"}`
	if got := jsonOf(t, f.Body(0)["contents"].([]any)[2]); got != want {
		t.Fatalf("function response = %s", got)
	}
}

// What a function response cannot carry fails before anything is sent,
// with an error naming the kind.
func TestUnsupportedToolResultMediaFails(t *testing.T) {
	f := newFake(t)
	m := f.model(0)
	for name, p := range map[string]tool.Part{
		"audio":        tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))),
		"image/bmp":    tool.ImagePart(tool.Base64Source("image/bmp", []byte("BM"))),
		"text/csv":     tool.DocumentPart(tool.Base64Source("text/csv", []byte("a,b")), ""),
		"url source":   tool.ImagePart(tool.URLSource("https://x.test/c.png", "image/png")),
		"not resolved": tool.ImagePart(tool.MediaSource{Kind: tool.SourceArtifact}),
	} {
		_, err := m.Request(context.Background(), answered(tool.Rich(p)), model.Params{})
		if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if f.Requests() != 0 {
		t.Fatalf("%d requests were sent", f.Requests())
	}
}
