package bridge

import (
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// An agent_tool spec names an agent by its handle; the bridge decodes it
// and core makes the tool (agent.AsTool), refusing what core refuses.
func TestAgentToolSpec(t *testing.T) {
	child := agent.NewBuilder(model.NewTestModel(model.Response(model.TextPart("x")))).Name("child").MustBuild()
	ch := handles.add(child)
	t.Cleanup(func() { handles.remove(ch) })
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{model.Response(model.TextPart("x"))}})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	prefix := `{"model":` + strconv.FormatInt(h, 10) + `,"tools":[{"id":0,"agent_tool":`
	for spec, want := range map[string]string{
		prefix + `{"agent":` + strconv.FormatInt(ch, 10) + `,"name":"c","grants":["nope"]}}]}`: `not registered: "nope"`,
		prefix + `{"agent":` + strconv.FormatInt(h, 10) + `,"name":"c"}}]}`:                    "not a *agent.Agent",
		prefix + `{"agent":999999,"name":"c"}}]}`:                                              "unknown handle",
	} {
		var s agentSpec
		err := decodeStrict([]byte(spec), &s)
		if err == nil {
			_, err = buildAgent(s)
		}
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, want) {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	var s agentSpec
	if err := decodeStrict([]byte(prefix+`{"agent":`+strconv.FormatInt(ch, 10)+`,"name":"c","description":"d"}}]}`), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := buildAgent(s); err != nil {
		t.Fatal(err)
	}
}
