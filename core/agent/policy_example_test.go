package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func ExampleBuilder_ToolErrorPolicy() {
	lookup := tool.New("lookup", "Look a customer up", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("cannot reach postgres://app:hunter2@db/prod")
	})
	m := model.NewTestModel(model.CallsResponse(model.Call("c1", "lookup", nil)), model.Response(model.TextPart("sorry")))
	a := agent.NewBuilder(m).Tool(lookup).MaxRetries(0).ToolErrorPolicy(agent.FailFast).MustBuild()

	res, err := a.Run(context.Background(), "who is customer 7?")
	var failed *agent.ToolFailedError
	if errors.As(err, &failed) {
		// The application gets the full error...
		fmt.Println(failed.Tool, failed.Kind, failed.Message)
	}
	// ...and the failed call's return, which the model would have read,
	// holds it redacted.
	content := res.Returns()[0].Content.(map[string]any)
	fmt.Println(content["message"])
	// Output:
	// lookup execution cannot reach postgres://app:hunter2@db/prod
	// cannot reach postgres://***@db/prod
}

func ExampleWithGrants() {
	noop := func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("ok"), nil
	}
	m := model.NewTestModel(model.CallsResponse(model.Call("c1", "delete_file", nil)), model.Response(model.TextPart("done")))
	a := agent.NewBuilder(m).Tool(tool.New("search", "", nil, noop), tool.New("delete_file", "", nil, noop)).MustBuild()

	res, _ := a.Run(context.Background(), "tidy up", agent.WithGrants("search"))
	for _, d := range m.Requests()[0].Params.Tools {
		fmt.Println("offered:", d.Name)
	}
	ret := res.Returns()[0]
	fmt.Println(ret.ErrorKind(), ret.Content.(map[string]any)["message"])
	// Output:
	// offered: search
	// user_error tool "delete_file" is not granted to this run
}
