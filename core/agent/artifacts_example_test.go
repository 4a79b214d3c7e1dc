package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A tool stores its image in the agent's artifact store and returns the
// reference: the conversation keeps the reference, and the model receives
// the bytes, read just before its request.
func ExampleBuilder_Artifacts() {
	chart := tool.New("chart", "Render the sales chart", nil,
		func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			w, err := tc.Artifacts.NewWrite("chart:"+tc.ToolCallID, "image/png", []byte("\x89PNG\r\n\x1a\n..."))
			if err != nil {
				return tool.Result{}, err
			}
			ref, err := tc.Artifacts.Put(ctx, w)
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Rich(tool.TextPart("Weekly sales:"), tool.ImagePart(tool.ArtifactSource(ref))), nil
		})
	m := model.NewTestModel(model.CallsResponse(model.Call("c1", "chart", map[string]any{})), model.Response(model.TextPart("Sales are up.")))
	scope, _ := artifact.ParseScope("tenant.acme")
	a := agent.NewBuilder(m).Tool(chart).Artifacts(scope, artifact.NewMemoryStore(artifact.Config{})).MustBuild()

	res, err := a.Run(context.Background(), "How are sales?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output)
	fmt.Println("history:", res.Messages[2].Returns()[0].Parts[1].Source.Kind)
	fmt.Println("model:", m.Requests()[1].Messages[2].Returns()[0].Parts[1].Source.Kind)
	// Output:
	// Sales are up.
	// history: artifact
	// model: base64
}
