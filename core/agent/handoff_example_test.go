package agent_test

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// A triage agent hands a refund request to the refund agent, which
// answers; the triage agent is not asked again.
func ExampleHandoffTo() {
	refunds := agent.NewBuilder(model.TextModel("Order A-17 is refunded.")).Name("Refund agent").
		Instructions("You refund orders.").MustBuild()
	billing := agent.NewBuilder(model.TextModel("Your invoice is paid.")).Name("Billing agent").MustBuild()
	triage := agent.NewBuilder(model.NewTestModel(model.CallsResponse(
		model.Call("h1", agent.HandoffToolName("Refund agent"), map[string]any{}),
	))).Name("triage").Handoffs(agent.HandoffTo(billing), agent.HandoffTo(refunds)).MustBuild()
	res, err := triage.Run(context.Background(), "Please refund order A-17.")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output)
	fmt.Println(res.LastAgent.Name(), res.Usage.Requests)
	// Output:
	// Order A-17 is refunded.
	// Refund agent 2
}
