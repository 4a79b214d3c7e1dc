package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// A tool returns rich output: ordered parts the model reads natively where
// the provider can, with the structured value kept beside them.
func ExampleRich() {
	chart := tool.New("chart", "Draw the weekly sales chart", nil,
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			png := []byte("\x89PNG\r\n\x1a\n...")
			return tool.Rich(
				tool.TextPart("Sales rose 12% this week."),
				tool.ImagePart(tool.Base64Source("image/png", png)),
			).WithStructuredContent(map[string]any{"growth": 0.12}).WithMetadata("app.source", "warehouse"), nil
		})
	r, _ := tool.NewRegistry(chart)
	ret := r.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "chart"})
	for _, p := range ret.Parts {
		fmt.Println(p)
	}
	fmt.Println(ret.StructuredContent, ret.Metadata["app.source"])
	// Output:
	// text(25 bytes)
	// image(base64, image/png)
	// map[growth:0.12] warehouse
}

// ModelError is a completed call the application rejected: the model reads
// it as an error, but nothing is retried and no budget is spent.
func ExampleModelError() {
	ret := tool.SuccessReturn(tool.Call{ID: "1", Name: "weather"}, tool.ModelError(tool.TextPart("unknown city: Atlantis")))
	fmt.Println(ret.IsError, ret.ErrorKind() == "", ret.Parts[0].Text)
	// Output: true true unknown city: Atlantis
}
