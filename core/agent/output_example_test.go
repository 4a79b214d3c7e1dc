package agent_test

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// An agent whose runs end with a structured answer: the model calls the
// output tool, whose arguments are validated against the schema.
func ExampleBuilder_Output() {
	m := model.NewTestModel(model.CallsResponse(model.Call("o1", agent.DefaultOutputName, map[string]any{"answer": 42})))
	a := agent.NewBuilder(m).Output(agent.OutputSpec{Schema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"answer": map[string]any{"type": "integer"}},
		"required":   []any{"answer"},
	}}).MustBuild()
	res, err := a.Run(context.Background(), "the answer?")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.OutputValue))
	// Output: {"answer":42}
}

// Model settings of the agent, merged with a run's.
func ExampleWithSettings() {
	temp, max := 0.0, 200
	m := model.TextModel("ok")
	a := agent.NewBuilder(m).Settings(model.Settings{Temperature: &temp}).MustBuild()
	if _, err := a.Run(context.Background(), "hi", agent.WithSettings(model.Settings{MaxTokens: &max})); err != nil {
		panic(err)
	}
	s := m.Requests()[0].Params.Settings
	fmt.Println(*s.Temperature, *s.MaxTokens)
	// Output: 0 200
}
