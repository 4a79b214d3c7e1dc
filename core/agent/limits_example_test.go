package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

func ExampleWithUsageLimits() {
	// A model that asks for a tool again and again.
	looping := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.CallsResponse(model.Call("", "add", map[string]int{"left": 1, "right": 1})), nil
	})
	a := agent.NewBuilder(looping).Tool(addTool()).UsageLimits(agent.UsageLimits{RequestLimit: 10}).MustBuild()

	_, err := a.Run(context.Background(), "add forever", agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 3}))
	var limit *agent.UsageLimitError
	if errors.As(err, &limit) {
		fmt.Println(limit.Limit, limit.Value)
	}
	fmt.Println(err)
	// Output:
	// request_limit 3
	// agent: usage limit exceeded: the next request would exceed the request_limit of 3
}
