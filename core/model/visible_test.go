package model_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestVisibleHidesHostSurfaces(t *testing.T) {
	ret := tool.SuccessReturn(tool.Call{ID: "c1", Name: "lookup"}, tool.Result{
		Content: "raw", ModelContent: "for the model", Metadata: map[string]any{"public": 1},
		AppValue: "app", UserContent: "user", PrivateMetadata: map[string]any{"python_traceback": "/home/me/secret.py"},
	})
	req := model.Request(model.UserPrompt("hi"), model.ToolReturn(ret))
	vis := model.Visible(req)
	b, err := json.Marshal(vis)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"request","parts":[{"kind":"user_prompt","content":[{"kind":"text","text":"hi"}]},` +
		`{"kind":"tool_return","tool_call_id":"c1","name":"lookup","content":"for the model","is_error":false,"metadata":{"public":1}}]}`
	if string(b) != want {
		t.Fatalf("visible\n got %s\nwant %s", b, want)
	}
	// The original keeps every surface.
	full, _ := json.Marshal(req)
	for _, s := range []string{"app_value", "user_content", "private_metadata", "secret.py"} {
		if !strings.Contains(string(full), s) {
			t.Errorf("original lost %s: %s", s, full)
		}
	}
	if &vis.Parts[0] == &req.Parts[0] {
		t.Error("a message with returns shares its parts with its projection")
	}
	// A message without returns is shared, not copied.
	resp := model.Response(model.TextPart("ok"))
	if v := model.Visible(resp); &v.Parts[0] != &resp.Parts[0] {
		t.Error("a message without returns was copied")
	}
}

func TestVisibleReturnKeepsOnlyModelFields(t *testing.T) {
	r := tool.Return{ToolCallID: "c", Name: "n", Content: 1, IsError: true, Metadata: map[string]any{"m": 1},
		AppValue: 2, UserContent: 3, PrivateMetadata: map[string]any{"p": 4}}
	v := model.VisibleReturn(r)
	if v.AppValue != nil || v.UserContent != nil || v.PrivateMetadata != nil ||
		v.ToolCallID != "c" || v.Name != "n" || v.Content != 1 || !v.IsError || v.Metadata["m"] != 1 {
		t.Fatalf("%+v", v)
	}
}
