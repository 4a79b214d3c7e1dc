package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Small media of each kind, inline or by URL.
var (
	pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	pdfBytes = []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	wavBytes = []byte("RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00D\xac\x00\x00\x88X\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00")
)

// contentCase is one tool result of the content scenario.
type contentCase struct {
	name  string
	kind  string // the tool.Part kind it tests ("" for a plain return)
	url   bool   // its media comes by URL
	ret   tool.Return
	kinds []string // the native kinds a carrying provider sends
	text  string   // text the result must hold
}

func contentCases() []contentCase {
	r := func(parts ...tool.Part) tool.Return {
		return tool.Return{ToolCallID: "call_c", Name: "fetch", Content: "see the parts", Parts: parts}
	}
	link := tool.ResourceLink{URI: "https://example.com/reports/q3", Name: "q3-report", MediaType: "application/pdf"}
	return []contentCase{
		{name: "Text", kind: tool.PartText, ret: r(tool.TextPart("plain words")), kinds: []string{KindText}, text: "plain words"},
		{name: "ImageBase64", kind: tool.PartImage, ret: r(tool.TextPart("the chart:"), tool.ImagePart(tool.Base64Source("image/png", pngBytes))),
			kinds: []string{KindText, KindImage}, text: "the chart:"},
		{name: "ImageURL", kind: tool.PartImage, url: true, ret: r(tool.ImagePart(tool.URLSource("https://example.com/chart.png", "image/png"))),
			kinds: []string{KindImage}},
		{name: "DocumentBase64", kind: tool.PartDocument, ret: r(tool.DocumentPart(tool.Base64Source("application/pdf", pdfBytes), "report.pdf")),
			kinds: []string{KindDocument}},
		{name: "DocumentURL", kind: tool.PartDocument, url: true, ret: r(tool.DocumentPart(tool.URLSource("https://example.com/report.pdf", "application/pdf"), "report.pdf")),
			kinds: []string{KindDocument}},
		{name: "Audio", kind: tool.PartAudio, ret: r(tool.AudioPart(tool.Base64Source("audio/wav", wavBytes))), kinds: []string{KindAudio}},
		{name: "ResourceLink", kind: tool.PartResourceLink, ret: r(tool.ResourceLinkPart(link)), kinds: []string{KindText}, text: link.URI},
	}
}

// carries reports whether p sends the parts of c natively.
func (c *contentCase) carried(p Provider) bool {
	if c.kind == tool.PartText {
		return true
	}
	if !p.Carries[c.kind] {
		return false
	}
	return !c.url || !p.NoURL[c.kind]
}

// contentHistory is a conversation whose last request returns ret.
func contentHistory(ret tool.Return) []model.Message {
	return []model.Message{
		prompt("Fetch it."),
		{Kind: model.KindResponse, Parts: []model.Part{model.ToolCallPart(ret.ToolCallID, ret.Name, json.RawMessage(`{"id":"q3"}`))}, Provider: "x"},
		model.Request(model.ToolReturn(ret)),
	}
}

var fetchTool = tool.Definition{
	Name:        "fetch",
	Description: "Fetches a resource.",
	Parameters:  map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}},
}

// testContent: each content kind of a tool result is sent natively, or
// fails the request naming the kind.
func testContent(t *testing.T, p Provider) {
	params := model.Params{Tools: []tool.Definition{fetchTool}}
	for _, c := range contentCases() {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, p)
			m := e.model(Options{})
			if !c.carried(p) {
				_, err := m.Request(ctx(t), contentHistory(c.ret), params)
				if err == nil {
					t.Fatalf("a %s part the provider does not carry was sent (%+v)", c.kind, e.fake.Seen())
				}
				if !errors.Is(err, model.ErrModel) {
					t.Errorf("errors.Is(err, model.ErrModel) is false for %v", err)
				}
				if !errorNames(err, c.kind) {
					t.Errorf("the error does not name the kind %s: %v", c.kind, err)
				}
				return
			}
			e.fake.Script(Turn{Text: "ok", Usage: usage})
			if _, err := m.Request(ctx(t), contentHistory(c.ret), params); err != nil {
				t.Fatal(err)
			}
			checkResult(t, e.seen(1)[0], c.ret.ToolCallID, c.kinds, c.text)
		})
	}
	t.Run("JSON", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Text: "ok", Usage: usage})
		ret := tool.Return{ToolCallID: "call_c", Name: "fetch", Content: map[string]any{"temp": 21, "unit": "C"}}
		if _, err := e.model(Options{}).Request(ctx(t), contentHistory(ret), params); err != nil {
			t.Fatal(err)
		}
		r := checkResult(t, e.seen(1)[0], "call_c", nil, "")
		if len(r.Kinds) != 1 || (r.Kinds[0] != KindText && r.Kinds[0] != KindJSON) {
			t.Errorf("kinds = %v, want one text or json block", r.Kinds)
		}
		if !jsonEqual([]byte(r.Text), []byte(`{"temp":21,"unit":"C"}`)) {
			t.Errorf("text = %q, want the JSON {\"temp\":21,\"unit\":\"C\"}", r.Text)
		}
	})
	t.Run("HostString", func(t *testing.T) {
		// A tool of a host runtime (Python) returns its content as JSON: a
		// string is sent as the string, not as a quoted JSON literal.
		e := newEnv(t, p)
		e.fake.Script(Turn{Text: "ok", Usage: usage})
		ret := tool.Return{ToolCallID: "call_c", Name: "fetch", Content: json.RawMessage(`"sunny in Paris"`)}
		if _, err := e.model(Options{}).Request(ctx(t), contentHistory(ret), params); err != nil {
			t.Fatal(err)
		}
		if r := checkResult(t, e.seen(1)[0], "call_c", nil, "sunny in Paris"); strings.Contains(r.Text, `"sunny in Paris"`) {
			t.Errorf("the string was sent as a JSON literal: %q", r.Text)
		}
	})
	t.Run("Error", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Text: "ok", Usage: usage})
		ret := tool.Return{ToolCallID: "call_c", Name: "fetch", Content: "not found", IsError: true}
		if _, err := e.model(Options{}).Request(ctx(t), contentHistory(ret), params); err != nil {
			t.Fatal(err)
		}
		r := checkResult(t, e.seen(1)[0], "call_c", nil, "not found")
		if !r.IsError {
			t.Errorf("the error return is not flagged: %+v", r)
		}
	})
	t.Run("ErrorParts", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Text: "ok", Usage: usage})
		ret := tool.Return{ToolCallID: "call_c", Name: "fetch", Content: "not found", IsError: true, Parts: []tool.Part{tool.TextPart("not found")}}
		if _, err := e.model(Options{}).Request(ctx(t), contentHistory(ret), params); err != nil {
			t.Fatal(err)
		}
		if r := checkResult(t, e.seen(1)[0], "call_c", nil, "not found"); !r.IsError {
			t.Errorf("the error return is not flagged: %+v", r)
		}
	})
	t.Run("Artifact", func(t *testing.T) { testArtifact(t, p, params) })
}

// testArtifact: an unresolved artifact reference fails; resolved, the
// image goes as any inline image.
func testArtifact(t *testing.T, p Provider, params model.Params) {
	e := newEnv(t, p)
	m := e.model(Options{})
	ref := tool.ArtifactRef{ID: "sha256:0123", MediaType: "image/png", Size: int64(len(pngBytes)), Name: "chart.png"}
	history := contentHistory(tool.Return{ToolCallID: "call_c", Name: "fetch", Content: "see the parts",
		Parts: []tool.Part{tool.ImagePart(tool.ArtifactSource(ref))}})
	_, err := m.Request(ctx(t), history, params)
	if err == nil || !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "artifact") {
		t.Fatalf("an unresolved artifact: err = %v, want a model error naming the artifact", err)
	}
	e.seen(0)
	resolved, err := model.ResolveArtifacts(ctx(t), history, resolver{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Carries[tool.PartImage] {
		_, err := m.Request(ctx(t), resolved, params)
		if err == nil || !errorNames(err, tool.PartImage) {
			t.Fatalf("a resolved image the provider does not carry: err = %v, want one naming image", err)
		}
		return
	}
	e.fake.Script(Turn{Text: "ok", Usage: usage})
	if _, err := m.Request(ctx(t), resolved, params); err != nil {
		t.Fatal(err)
	}
	checkResult(t, e.seen(1)[0], "call_c", []string{KindImage}, "")
}

// resolver resolves every reference to the PNG.
type resolver struct{}

func (resolver) Resolve(_ context.Context, ref tool.ArtifactRef) (string, []byte, error) {
	return ref.MediaType, pngBytes, nil
}

// checkResult checks that s carried one result, for callID, with kinds (when
// not nil) and holding text, and returns it.
func checkResult(t *testing.T, s Seen, callID string, kinds []string, text string) Result {
	t.Helper()
	if len(s.Results) != 1 {
		t.Fatalf("the request carried %d results, want 1 (%+v)", len(s.Results), s)
	}
	r := s.Results[0]
	if r.CallID != callID {
		t.Errorf("result call id = %q, want %q", r.CallID, callID)
	}
	if kinds != nil && strings.Join(r.Kinds, ",") != strings.Join(kinds, ",") {
		t.Errorf("result kinds = %v, want %v", r.Kinds, kinds)
	}
	if !strings.Contains(r.Text, text) {
		t.Errorf("result text = %q, want it to hold %q", r.Text, text)
	}
	return r
}
