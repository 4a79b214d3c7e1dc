package bridge

import (
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// A malformed history reaches the host as invalid_spec (a ValueError in
// Python) naming the first offending message.
func TestMalformedHistoryIsInvalidSpec(t *testing.T) {
	a := agent.NewBuilder(model.NewTestModel()).MustBuild()
	for _, data := range []string{
		`[{"kind":"request","parts":[{"kind":"tool_call","id":"c","name":"x"}]}]`,
		`[{"kind":"request","parts":[{"kind":"nope"}]}]`,
		`{"not":"a list"}`,
	} {
		msgs, err := agent.DecodeMessages([]byte(data))
		if err == nil {
			_, err = a.SessionFromMessages(msgs)
		}
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "invalid message history") {
			t.Errorf("%s: got %+v", data, ae)
		}
	}
}
