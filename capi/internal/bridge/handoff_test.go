package bridge

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// A handoffs spec names the receiving agent by its handle; the bridge
// decodes it and core makes the transfer tools, refusing what core
// refuses (a name another tool uses is a configuration error).
func TestHandoffSpec(t *testing.T) {
	billing := agent.NewBuilder(model.NewTestModel(model.Response(model.TextPart("paid")))).Name("Billing").MustBuild()
	bh := testHandle(t, billing)
	h := strconv.FormatInt(testModelHandle(t, model.CallsResponse(model.Call("h1", "transfer_to_billing", map[string]any{}))), 10)
	prefix := `{"model":` + h + `,"handoffs":[`
	for spec, want := range map[string]string{
		prefix + `{"agent":` + h + `}]}`: "not a *agent.Agent",
		prefix + `{"agent":999999}]}`:    "unknown handle",
	} {
		_, err := agentFromJSON(t, spec)
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, want) {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	_, err := agentFromJSON(t, prefix+`{"agent":`+bh+`},{"agent":`+bh+`}]}`)
	if err == nil || !strings.Contains(err.Error(), "transfer_to_billing") {
		t.Fatalf("two handoffs of one name: %v", err)
	} else if ae := toABIError(err); ae.Type != "config" && ae.Type != "invalid_spec" {
		t.Fatalf("two handoffs of one name: %+v", ae)
	}
	a, err := agentFromJSON(t, prefix+`{"agent":`+bh+`,"description":"bills"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), "pay?")
	if err != nil || res.Output != "paid" || res.LastAgentName != "Billing" {
		t.Fatalf("run: %+v %v", res, err)
	}
	if ae := toABIError(errors.Join(agent.ErrHandoff)); ae.Type != "handoff" {
		t.Fatalf("slug %q", ae.Type)
	}
}
