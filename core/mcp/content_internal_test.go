package mcp

import (
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/starweaver-go/starweaver/core/tool"
)

// The servers of the other tests send no audio and no embedded images;
// these cases cover the rest of the mapping.
func TestResultMapsEveryContentKind(t *testing.T) {
	png := []byte("\x89PNG")
	for name, c := range map[string]struct {
		in   *sdk.CallToolResult
		want tool.Result
	}{
		"texts join": {
			in:   &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}},
			want: tool.Result{Content: "a\n\nb"},
		},
		"structured only": {
			in:   &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1.0}},
			want: tool.Result{Content: map[string]any{"n": 1.0}, StructuredContent: map[string]any{"n": 1.0}},
		},
		"empty": {in: &sdk.CallToolResult{}, want: tool.Result{Content: ""}},
		"is error": {
			in:   &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no"}}, IsError: true},
			want: tool.Result{Content: "no", IsError: true},
		},
		"media and resources": {
			in: &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.png", MIMEType: "image/png", Blob: png}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.bin", Blob: []byte{1}}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", Text: "hello"}},
				&sdk.ResourceLink{URI: "file:///b", Name: "b", MIMEType: "text/plain"},
			}},
			want: tool.Rich(
				tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))),
				tool.ImagePart(tool.Base64Source("image/png", png)),
				tool.DocumentPart(tool.Base64Source("application/octet-stream", []byte{1}), "file:///a.bin"),
				tool.TextPart("hello"),
				tool.ResourceLinkPart(tool.ResourceLink{URI: "file:///b", Name: "b", MediaType: "text/plain"}),
			),
		},
	} {
		got, err := result(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %v; want %+v", name, got, err, c.want)
		}
		if err := tool.CheckOutput(got, tool.DefaultMaxOutputBytes); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	//lint:ignore SA1019 servers may still send sampling content while it is deprecated
	_, err := result(&sdk.CallToolResult{Content: []sdk.Content{&sdk.ToolUseContent{ID: "x", Name: "y"}}})
	if tool.KindOf(err) != tool.ErrorKindUserError {
		t.Errorf("sampling content: %v", err)
	}
}
