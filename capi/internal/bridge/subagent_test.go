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
	child := agent.NewBuilder(model.NewTestModel(model.Response(model.TextPart("x")))).Name("child").MustBuild()
	ch := handles.add(child)
	t.Cleanup(func() { handles.remove(ch) })
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{model.Response(model.TextPart("x"))}})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	model := `{"model":` + strconv.FormatInt(h, 10)
	route := `{"agent":` + strconv.FormatInt(ch, 10)
	for spec, want := range map[string][2]string{
		model + `,"subagents":[` + route + `,"grants":["nope"]}]}`:                                                    {"config", `not registered: "nope"`},
		model + `,"subagents":[{"agent":999999,"name":"c"}]}`:                                                         {"invalid_spec", "unknown handle"},
		model + `,"subagents":[` + route + `}],"spawn_concurrency":-1}`:                                               {"config", "must not be negative"},
		model + `,"subagents":[` + route + `},` + route + `}]}`:                                                       {"config", `two subagents are named "child"`},
		model + `,"subagents":[` + route + `,"name":"c"}],"tools":[{"id":0,"agent_tool":` + route + `,"name":"c"}}]}`: {"config", `named "c" like a subagent`},
	} {
		var s agentSpec
		err := decodeStrict([]byte(spec), &s)
		if err == nil {
			_, err = buildAgent(s)
		}
		if ae := toABIError(err); ae.Type != want[0] || !strings.Contains(ae.Message, want[1]) {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	var s agentSpec
	if err := decodeStrict([]byte(model+`,"subagents":[`+route+`,"description":"d"}],"spawn_concurrency":2}`), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := buildAgent(s); err != nil {
		t.Fatal(err)
	}
}
