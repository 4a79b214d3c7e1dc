package anthropic_test

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
	ret := tool.SuccessReturn(tool.Call{ID: "toolu_1", Name: "chart"}, res)
	return append(ask("Draw it"),
		model.Response(model.ToolCallPart("toolu_1", "chart", nil)),
		model.Request(model.ToolReturn(ret)))
}

func TestRichToolResultsGoNatively(t *testing.T) {
	f := newFake(t, reply{file: "text.json"}, reply{file: "text.json"})
	m := f.model(0)
	size := int64(7)
	res := tool.Rich(
		tool.TextPart("Sales chart:"),
		tool.TextPart(""), // dropped: the API rejects empty text blocks
		tool.ImagePart(tool.Base64Source("image/png", pngData)),
		tool.ImagePart(tool.URLSource("https://x.test/c.png", "")),
		tool.DocumentPart(tool.Base64Source("application/pdf", []byte("%PDF-1.7")), "report.pdf"),
		tool.DocumentPart(tool.Base64Source("text/plain", []byte("plain notes")), ""),
		tool.DocumentPart(tool.URLSource("https://x.test/r.pdf", "application/pdf"), ""),
		tool.ResourceLinkPart(tool.ResourceLink{URI: "https://x.test/d.csv", Name: "d.csv", Size: &size}),
	)
	if _, err := m.Request(context.Background(), answered(res), model.Params{}); err != nil {
		t.Fatal(err)
	}
	msgs := f.Body(0)["messages"].([]any)
	want := `{"content":[{"content":[` +
		`{"text":"Sales chart:","type":"text"},` +
		`{"source":{"data":"iVBORw0KGgppbWc=","media_type":"image/png","type":"base64"},"type":"image"},` +
		`{"source":{"type":"url","url":"https://x.test/c.png"},"type":"image"},` +
		`{"source":{"data":"JVBERi0xLjc=","media_type":"application/pdf","type":"base64"},"title":"report.pdf","type":"document"},` +
		`{"source":{"data":"plain notes","media_type":"text/plain","type":"text"},"type":"document"},` +
		`{"source":{"type":"url","url":"https://x.test/r.pdf"},"type":"document"},` +
		`{"text":"{\"kind\":\"resource_link\",\"name\":\"d.csv\",\"uri\":\"https://x.test/d.csv\",\"size\":7}","type":"text"}],` +
		`"tool_use_id":"toolu_1","type":"tool_result"}],"role":"user"}`
	if got := jsonOf(t, msgs[2]); got != want {
		t.Fatalf("tool result =\n%s\nwant\n%s", got, want)
	}

	// A model error keeps the API's own error flag.
	if _, err := m.Request(context.Background(), answered(tool.ModelError(tool.TextPart("no such city"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	want = `{"content":[{"content":[{"text":"no such city","type":"text"}],"is_error":true,"tool_use_id":"toolu_1","type":"tool_result"}],"role":"user"}`
	if got := jsonOf(t, f.Body(1)["messages"].([]any)[2]); got != want {
		t.Fatalf("model error =\n%s\nwant\n%s", got, want)
	}
}

func TestUnsupportedToolResultMediaFails(t *testing.T) {
	f := newFake(t)
	m := f.model(0)
	for name, p := range map[string]tool.Part{
		"audio":        tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))),
		"image/bmp":    tool.ImagePart(tool.Base64Source("image/bmp", []byte("BM"))),
		"text/csv":     tool.DocumentPart(tool.Base64Source("text/csv", []byte("a,b")), ""),
		"by URL":       tool.DocumentPart(tool.URLSource("https://x.test/a.docx", "application/msword"), ""),
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
