package userinput_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/bundles/userinput"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A model asks a clarifying question; the run waits until a person
// answers, and the model then reads the question with its answer.
func Example() {
	question := "Which database should I use?"
	m := model.NewTestModel(
		model.CallsResponse(model.Call("call_1", userinput.ToolName, map[string]any{
			"questions": []any{map[string]any{
				"question": question,
				"header":   "Database",
				"options": []any{
					map[string]any{"label": "Postgres", "description": "A server database"},
					map[string]any{"label": "SQLite", "description": "A single file"},
				},
				"multiSelect": false,
			}},
		})),
		model.Response(model.TextPart("Using SQLite.")),
	)
	session := agent.NewBuilder(m).Toolset(userinput.Tools()).MustBuild().NewSession()

	res, err := session.Run(context.Background(), "Set up storage for my app")
	if err != nil {
		fmt.Println(err)
		return
	}
	pending := res.Pending[0]
	questions, _ := userinput.ParseQuestions(pending.Arguments)
	fmt.Println(res.Status, pending.Metadata["kind"], questions[0].Header)

	// The host shows the question and sends back what the person chose.
	input, _ := json.Marshal(map[string]any{"answers": map[string]string{question: "SQLite"}})
	res, err = session.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: pending.ID, Approved: true, UserInput: input,
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := res.Returns()[0].Content.(userinput.Reply)
	fmt.Println(reply.Answers[question])
	fmt.Println(res.Output)
	// Output:
	// waiting clarifying_questions Database
	// SQLite
	// Using SQLite.
}

// Durable hosts resolve answers outside a live session with the same
// validation the tool applies.
func ExampleResolveAnswers() {
	questions := []userinput.Question{{Question: "Which region?"}}
	a, err := userinput.ResolveAnswers(questions, json.RawMessage(`{"answers":{"Which region?":" eu-west "}}`))
	fmt.Printf("%q %v\n", a.Answers["Which region?"], err)
	_, err = userinput.ResolveAnswers(questions, json.RawMessage(`{"answers":{"Which zone?":"b"}}`))
	fmt.Println(tool.KindOf(err), tool.AsError(err).Message)
	// Output:
	// "eu-west" <nil>
	// user_error invalid clarifying answers: "Which zone?" is not one of the questions asked; key answers by the exact question text
}
