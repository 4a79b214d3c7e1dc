package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A destructive tool waits for a person's approval unless the agent's
// destructive policy says otherwise.
func ExampleBuilder_DestructivePolicy() {
	drop := tool.New("drop_table", "Drop a table", nil,
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("dropped"), nil
		}).WithEffect(effect.ClassDestructive)
	for _, p := range []tool.DestructivePolicy{"", tool.DestructiveAllow, tool.DestructiveDeny} {
		m := model.NewTestModel(
			model.CallsResponse(model.Call("c1", "drop_table", map[string]string{"name": "users"})),
			model.Response(model.TextPart("done")),
		)
		res, err := agent.NewBuilder(m).Tool(drop).DestructivePolicy(p, nil).MustBuild().Run(context.Background(), "drop users")
		if err != nil {
			panic(err)
		}
		fmt.Printf("%q: %s\n", p, res.Status)
	}
	// Output:
	// "": waiting
	// "allow": completed
	// "deny": completed
}

// A host that assembles its plugins itself installs the batch tool
// explicitly (Builder.BatchTool(true) is the shorthand).
func ExampleBuilder_Plugin() {
	a := agent.NewBuilder(model.TextModel("ok")).Plugin(agent.StandardBatchPlugin()).MustBuild()
	res, err := a.Run(context.Background(), "hi")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output)
	// Output: ok
}

// A tool that may defer hands its completion key on and returns Pending;
// the host completes the call with that key.
func Example_pending() {
	var handedOn string
	render := tool.New("render", "Render a scene", nil,
		func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			handedOn = tc.CompletionKey() // the render farm gets it
			return tool.Result{}, tool.Pending("queued", tool.PendingCompletion{})
		}).WithAttemptMayDefer(true)
	m := model.NewTestModel(
		model.CallsResponse(model.Call("c1", "render", map[string]any{})),
		model.Response(model.TextPart("rendered")),
	)
	s := agent.NewBuilder(m).Tool(render).MustBuild().NewSession()
	res, _ := s.Run(context.Background(), "render")
	fmt.Println(res.Status, s.Pending()[0].CompletionKey == handedOn)
	res, err := s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{{
		ID: handedOn, Status: agent.DeferredCompleted, Response: json.RawMessage(`"intro.mp4"`),
	}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output)
	// Output:
	// waiting true
	// rendered
}
