package bridge

import (
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// Subagents are decoded by handle: a bad handle is invalid_spec; core's
// refusals (a route named like a tool, two routes of one name, a grant the
// child lacks, a negative cap) are config errors, as every agent setting's.
func TestSubagentSpec(t *testing.T) {
	ch := testHandle(t, agent.NewBuilder(model.NewTestModel(model.Response(model.TextPart("x")))).Name("child").MustBuild())
	model := `{"model":` + strconv.FormatInt(testModelHandle(t, model.Response(model.TextPart("x"))), 10)
	route := `{"agent":` + ch
	for spec, want := range map[string][2]string{
		model + `,"subagents":[` + route + `,"grants":["nope"]}]}`:                                                    {"config", `not registered: "nope"`},
		model + `,"subagents":[{"agent":999999,"name":"c"}]}`:                                                         {"invalid_spec", "unknown handle"},
		model + `,"subagents":[` + route + `}],"spawn_concurrency":-1}`:                                               {"config", "must not be negative"},
		model + `,"subagents":[` + route + `},` + route + `}]}`:                                                       {"config", `two subagents are named "child"`},
		model + `,"subagents":[` + route + `,"name":"c"}],"tools":[{"id":0,"agent_tool":` + route + `,"name":"c"}}]}`: {"config", `named "c" like a subagent`},
	} {
		_, err := agentFromJSON(t, spec)
		if ae := toABIError(err); ae.Type != want[0] || !strings.Contains(ae.Message, want[1]) {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	if _, err := agentFromJSON(t, model+`,"subagents":[`+route+`,"description":"d"}],"spawn_concurrency":2}`); err != nil {
		t.Fatal(err)
	}
}
