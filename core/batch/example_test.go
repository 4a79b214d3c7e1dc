package batch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A model reads two files in one batch call; a call of a tool the agent
// does not have fails alone.
func Example() {
	read := tool.New("read", "Read a file.", map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []any{"path"},
	}, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		var in struct{ Path string }
		_ = json.Unmarshal(args, &in)
		return tool.Text("contents of " + in.Path + " (call " + tc.ToolCallID + ")"), nil
	})
	m := model.NewTestModel(
		model.CallsResponse(model.Call("call_1", batch.Name, map[string]any{"tool_calls": []any{
			map[string]any{"tool": "read", "parameters": map[string]any{"path": "a.txt"}},
			map[string]any{"tool": "read", "parameters": map[string]any{"path": "b.txt"}},
			map[string]any{"tool": "write", "parameters": map[string]any{"path": "c.txt"}},
		}})),
		model.Response(model.TextPart("Read both.")),
	)
	res, err := agent.NewBuilder(m).Tool(read).BatchTool(true).MustBuild().NewSession().Run(context.Background(), "Read a.txt and b.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.MarshalIndent(res.Returns()[0].Content, "", " ")
	fmt.Println(string(out))
	fmt.Println(res.Output)
	// Output:
	// {
	//  "results": [
	//   {
	//    "index": 0,
	//    "tool": "read",
	//    "success": true,
	//    "duration_ms": 0,
	//    "result": "contents of a.txt (call call_1:00)"
	//   },
	//   {
	//    "index": 1,
	//    "tool": "read",
	//    "success": true,
	//    "duration_ms": 0,
	//    "result": "contents of b.txt (call call_1:01)"
	//   },
	//   {
	//    "index": 2,
	//    "tool": "write",
	//    "success": false,
	//    "duration_ms": 0,
	//    "error": "Tool 'write' is unavailable in this session"
	//   }
	//  ]
	// }
	// Read both.
}

func ExampleChildID() {
	fmt.Println(batch.ChildID("call_7", 3))
	// Output: call_7:03
}
