package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A tool declares a process start with its result; the agent commits the
// result, then realises the start once, and the model reads its outcome.
func ExampleBuilder_Intents() {
	queue := tool.New("queue", "Queue a report", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		start := &intent.StartProcess{SessionID: tc.ConversationID, Request: intent.ProcessStartRequest{Originator: "report"}}
		return tool.Result{Content: "queued", Intents: intent.V1(start)}, nil
	})
	m := model.NewTestModel(model.CallsResponse(model.Call("call-1", "queue", map[string]any{})), model.Response(model.TextPart("done")))
	a := agent.NewBuilder(m).Tool(queue).Intents(&intent.Realiser{Journal: intent.NewMemoryJournal()}).MustBuild()
	res, err := a.NewSession().Run(context.Background(), "queue the report")
	if err != nil {
		panic(err)
	}
	for _, ret := range res.Returns() {
		outs, _ := agent.IntentOutcomes(ret)
		ex := outs[0].(intent.Executed)
		fmt.Println(ex.Kind, ex.ParentEnd.Policy, ex.ParentEnd.ProcessID == ex.Identity.ReplayKey)
	}
	content, _ := m.Requests()[1].Messages[2].Returns()[0].Content.(string)
	fmt.Println(content[:len("queued\n[tool intent start_process #0 executed: ")])
	// Output:
	// start_process cancel true
	// queued
	// [tool intent start_process #0 executed:
}
