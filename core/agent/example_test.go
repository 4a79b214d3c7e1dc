package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// WeatherArgs are the arguments of the weather tool; the jsonschema tags
// become per-argument descriptions and defaults in its schema.
type WeatherArgs struct {
	City  string `json:"city" jsonschema:"description=City to look up"`
	Units string `json:"units,omitempty" jsonschema:"description=celsius or fahrenheit,enum=celsius,enum=fahrenheit,default=celsius"`
}

func Example() {
	weather := tool.Typed("weather", "Current weather for a city",
		func(ctx context.Context, tc *tool.Context, args WeatherArgs) (tool.Result, error) {
			if args.City == "" {
				return tool.Result{}, tool.ModelRetry("city must not be empty")
			}
			return tool.JSON(map[string]any{"city": args.City, "units": args.Units, "temp": 21}), nil
		})

	m := model.NewTestModel(
		model.CallsResponse(model.Call("call_1", "weather", map[string]string{"city": "Paris"})),
		model.Response(model.TextPart("It is 21 degrees in Paris.")),
	)
	a, err := agent.NewBuilder(m).Tool(weather).Instructions("Answer in one sentence.").Build()
	if err != nil {
		panic(err)
	}
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Output)
	for _, ret := range res.Returns() {
		b, _ := json.Marshal(ret.Content)
		fmt.Println(ret.Name, ret.IsError, string(b))
	}
	// What the model was sent: the tool definitions of the first request.
	fmt.Println(m.Requests()[0].Params.Tools[0].Name)
	// Output:
	// completed It is 21 degrees in Paris.
	// weather false {"city":"Paris","temp":21,"units":"celsius"}
	// weather
}

func ExampleSession_Resume() {
	deploy := tool.New("deploy", "Deploy a release", nil,
		func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			if tc.Approval == nil {
				return tool.Result{}, tool.ApprovalRequired("deploy production", map[string]any{"risk": "high"})
			}
			return tool.Text("deployed by " + tc.Approval.Metadata["decided_by"].(string)), nil
		})
	m := model.NewTestModel(
		model.CallsResponse(model.Call("c1", "deploy", nil)),
		model.Response(model.TextPart("done")),
	)
	s := agent.NewBuilder(m).Tool(deploy).MustBuild().NewSession()
	waiting, _ := s.Run(context.Background(), "ship it")
	fmt.Println(waiting.Status, waiting.Pending[0].ToolName, waiting.Pending[0].Metadata["risk"])

	res, err := s.Resume(context.Background(), agent.Resolution{
		Approvals: []agent.ApprovalDecision{{ID: waiting.Pending[0].ID, Approved: true, DecidedBy: "ops"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Returns()[0].Content)
	// Output:
	// waiting deploy high
	// completed deployed by ops
}

// A conversation continues in a fresh session from the messages of an
// earlier run (for example stored as JSON).
func ExampleAgent_SessionFromMessages() {
	ctx := context.Background()
	first, err := agent.NewBuilder(model.NewTestModel(model.Response(model.TextPart("Paris")))).MustBuild().
		Run(ctx, "Capital of France?")
	if err != nil {
		panic(err)
	}
	stored, _ := json.Marshal(first.Messages)

	msgs, err := agent.DecodeMessages(stored)
	if err != nil {
		panic(err)
	}
	m := model.NewTestModel(model.Response(model.TextPart("About 2 million.")))
	s, err := agent.NewBuilder(m).MustBuild().SessionFromMessages(msgs)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(ctx, "How many people live there?")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output, len(m.Requests()[0].Messages))
	// Output: About 2 million. 3
}
