package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// A proxy tool reaches an unlisted tool through Context.Dispatch: the
// model sees only the proxy, and the hidden tool's schema still applies.
func ExampleUnlisted() {
	secret := tool.Unlisted(tool.New("secret", "", map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"},
	}, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.Text("secret got " + string(args)), nil
	}))
	proxy := tool.New("proxy", "", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		ret := tc.Dispatch(ctx, tool.Call{ID: tc.ToolCallID, Name: "secret", Arguments: args})
		return tool.Result{Content: ret.Content, IsError: ret.IsError}, nil
	})
	r, _ := tool.NewRegistry(proxy, secret)
	fmt.Println(r.Names())
	fmt.Println(r.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "proxy", Arguments: json.RawMessage(`{"n":7}`)}).Content)
	direct := r.Execute(context.Background(), nil, tool.Call{ID: "2", Name: "secret", Arguments: json.RawMessage(`{"n":7}`)})
	fmt.Println(direct.ErrorKind())
	// Output:
	// [proxy]
	// secret got {"n":7}
	// not_found
}
