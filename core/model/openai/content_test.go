package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

var pngData = []byte("\x89PNG\r\n\x1a\nimg")

// richHistory is a conversation whose last request answers one call with
// the given output.
func richHistory(res tool.Result) []model.Message {
	ret := tool.SuccessReturn(tool.Call{ID: "call_1", Name: "chart"}, res)
	return []model.Message{
		model.Request(model.UserPrompt("Draw it")),
		model.Response(model.ToolCallPart("call_1", "chart", nil)),
		model.Request(model.ToolReturn(ret)),
	}
}

func TestResponsesSendsRichToolResultsNatively(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "gpt-4.1", Options{}))
	size := int64(12)
	res := tool.Rich(
		tool.TextPart("Sales chart:"),
		tool.ImagePart(tool.Base64Source("image/png", pngData)),
		tool.ImagePart(tool.URLSource("https://x.test/c.png", "image/png")),
		tool.DocumentPart(tool.Base64Source("application/pdf", []byte("%PDF-1.7")), "report.pdf"),
		tool.DocumentPart(tool.URLSource("https://x.test/r.pdf", ""), ""),
		tool.ResourceLinkPart(tool.ResourceLink{URI: "https://x.test/data.csv", Name: "data.csv", Size: &size}),
	)
	if _, err := m.Request(context.Background(), richHistory(res), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["input"], `[
		{"role":"user","content":"Draw it"},
		{"type":"function_call","call_id":"call_1","name":"chart","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":[
			{"type":"input_text","text":"Sales chart:"},
			{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgppbWc="},
			{"type":"input_image","image_url":"https://x.test/c.png"},
			{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjc=","filename":"report.pdf"},
			{"type":"input_file","file_url":"https://x.test/r.pdf"},
			{"type":"input_text","text":"{\"kind\":\"resource_link\",\"name\":\"data.csv\",\"uri\":\"https://x.test/data.csv\",\"size\":12}"}]}]`)
}

func TestResponsesModelErrorAndStructuredContent(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "gpt-4.1", Options{}))
	// A model error reads as an error; structured content rides along in
	// history, and the model reads the parts.
	res := tool.ModelError(tool.TextPart("no such city")).WithStructuredContent(map[string]any{"code": 404})
	if _, err := m.Request(context.Background(), richHistory(res), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["input"].([]any)[2], `{"type":"function_call_output","call_id":"call_1","output":[
		{"type":"input_text","text":"Error: "},{"type":"input_text","text":"no such city"}]}`)
	// model_visible keeps the plain text form.
	if _, err := m.Request(context.Background(), richHistory(tool.ModelVisible(map[string]any{"celsius": 21})), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["input"].([]any)[2], `{"type":"function_call_output","call_id":"call_1","output":"{\"celsius\":21}"}`)
}

func TestResponsesRefusesAudioAndUnresolvedArtifacts(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "gpt-4.1", Options{}))
	_, err := m.Request(context.Background(), richHistory(tool.Rich(tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))))), model.Params{})
	if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "audio") {
		t.Fatalf("audio: %v", err)
	}
	ref := storedPNG(t)
	_, err = m.Request(context.Background(), richHistory(tool.Rich(tool.ImagePart(tool.ArtifactSource(ref)))), model.Params{})
	if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "not resolved") {
		t.Fatalf("unresolved artifact: %v", err)
	}
	host := tool.SuccessReturn(tool.Call{ID: "call_1", Name: "chart"}, tool.HostOnly(tool.TextPart("secret")))
	hist := richHistory(tool.Text("x"))
	hist[2] = model.Visible(model.Request(model.ToolReturn(host)))
	_, err = m.Request(context.Background(), hist, model.Params{})
	if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "host-only") {
		t.Fatalf("host-only: %v", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
}

func TestChatSendsTextPartsAndRefusesMedia(t *testing.T) {
	srv := newServer(t, ok(t, "chat_text.json"))
	m := must(New(srv.client(), "gpt-4.1", Options{}))
	ctx := context.Background()
	if _, err := m.Request(ctx, richHistory(tool.Rich(tool.TextPart("one"), tool.TextPart("two"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["messages"].([]any)[2], `{"role":"tool","tool_call_id":"call_1","content":[
		{"type":"text","text":"one"},{"type":"text","text":"two"}]}`)
	if _, err := m.Request(ctx, richHistory(tool.ModelError(tool.TextPart("rejected"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["messages"].([]any)[2], `{"role":"tool","tool_call_id":"call_1","content":[
		{"type":"text","text":"Error: "},{"type":"text","text":"rejected"}]}`)
	if _, err := m.Request(ctx, richHistory(tool.Rich(tool.TextPart("only"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["messages"].([]any)[2], `{"role":"tool","tool_call_id":"call_1","content":"only"}`)
	sent := len(srv.requests())

	for _, p := range []tool.Part{
		tool.ImagePart(tool.URLSource("https://x.test/c.png", "image/png")),
		tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))),
		tool.DocumentPart(tool.Base64Source("application/pdf", []byte("%PDF")), "r.pdf"),
	} {
		_, err := m.Request(ctx, richHistory(tool.Rich(tool.TextPart("see:"), p)), model.Params{})
		if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "carry text only") || !strings.Contains(err.Error(), p.Kind) {
			t.Fatalf("%s: %v", p.Kind, err)
		}
	}
	if len(srv.requests()) != sent {
		t.Fatal("a request with media was sent")
	}
}

func storedPNG(t *testing.T) artifact.Ref {
	t.Helper()
	sc, _ := artifact.ParseScope("tenant.acme")
	w, err := artifact.NewWrite(sc, "k", "image/png", pngData)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := artifact.NewMemoryStore(artifact.Config{}).Put(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}
