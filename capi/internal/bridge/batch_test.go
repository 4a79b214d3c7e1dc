package bridge

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// The agent spec's "batch_tool": true offers the batch tool (absent: not
// offered; not a boolean: invalid_spec); its calls reach the bundle's tool
// with the ids "{parent}:{index:02}", an unknown tool fails alone, and a
// child asking for approval pauses the batch call with "batch_approvals".
func TestBatchToolSpec(t *testing.T) {
	question := map[string]any{"questions": []any{map[string]any{
		"question": "Which one?", "header": "Pick",
		"options": []any{
			map[string]any{"label": "A", "description": "first"},
			map[string]any{"label": "B", "description": "second"},
		},
		"multiSelect": false,
	}}}
	h := testModelHandle(t,
		model.CallsResponse(model.Call("c1", "batch", map[string]any{"tool_calls": []any{
			map[string]any{"tool": "ask_user_question", "parameters": question},
			map[string]any{"tool": "nope", "parameters": map[string]any{}},
		}})),
		model.Response(model.TextPart("done")),
	)
	a, err := agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+`,"toolsets":[{"bundle":"user_input"}],"batch_tool":true}`)
	if err != nil {
		t.Fatal(err)
	}
	s := a.NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != agent.StatusWaiting || len(res.Pending) != 1 || res.Pending[0].ToolName != "batch" {
		t.Fatalf("%s %+v", res.Status, res.Pending)
	}
	b, _ := json.Marshal(res.Pending[0].Metadata["batch_approvals"])
	if !strings.Contains(string(b), `"tool":"ask_user_question"`) || !strings.Contains(string(b), `"tool_call_id":"c1:00"`) {
		t.Fatalf("batch_approvals %s", b)
	}
	res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: res.Pending[0].ID, Approved: true}}})
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := json.Marshal(res.Returns()[0])
	for _, want := range []string{
		`"index":0,"tool":"ask_user_question","success":true,"duration_ms":0,"result":{"questions"`,
		`{"index":1,"tool":"nope","success":false,"duration_ms":0,"error":"Tool 'nope' is unavailable in this session"}`,
		`"batch_calls":[{"index":0,"tool":"ask_user_question","tool_call_id":"c1:00"},{"error_kind":"not_found","index":1,"tool":"nope","tool_call_id":"c1:01"}]`,
	} {
		if !strings.Contains(string(wire), want) {
			t.Fatalf("return %s\nlacks %s", wire, want)
		}
	}

	h = testModelHandle(t, model.Response(model.TextPart("x")))
	a, err = agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+`}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.NewSession().Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if tools := mustModel(t, h).Requests()[0].Params.Tools; len(tools) != 0 {
		t.Fatalf("offered %v without batch_tool", tools)
	}
	_, err = agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+`,"batch_tool":"yes"}`)
	if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "batch_tool") {
		t.Fatalf("%+v", ae)
	}
}
