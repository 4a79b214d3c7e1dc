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
	ch := testHandle(t, agent.NewBuilder(model.NewTestModel(model.Response(model.TextPart("x")))).Name("child").MustBuild())
	h := strconv.FormatInt(testModelHandle(t, model.Response(model.TextPart("x"))), 10)
	prefix := `{"model":` + h + `,"tools":[{"id":0,"agent_tool":`
	for spec, want := range map[string]string{
		prefix + `{"agent":` + ch + `,"name":"c","grants":["nope"]}}]}`: `not registered: "nope"`,
		prefix + `{"agent":` + h + `,"name":"c"}}]}`:                    "not a *agent.Agent",
		prefix + `{"agent":999999,"name":"c"}}]}`:                       "unknown handle",
	} {
		_, err := agentFromJSON(t, spec)
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, want) {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	if _, err := agentFromJSON(t, prefix+`{"agent":`+ch+`,"name":"c","description":"d"}}]}`); err != nil {
		t.Fatal(err)
	}
}
