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
	bh := handles.add(billing)
	t.Cleanup(func() { handles.remove(bh) })
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{
		model.CallsResponse(model.Call("h1", "transfer_to_billing", map[string]any{})),
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	prefix := `{"model":` + strconv.FormatInt(h, 10) + `,"handoffs":[`
	for spec, want := range map[string]string{
		prefix + `{"agent":` + strconv.FormatInt(h, 10) + `}]}`: "not a *agent.Agent",
		prefix + `{"agent":999999}]}`:                           "unknown handle",
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
	clash := prefix + `{"agent":` + strconv.FormatInt(bh, 10) + `},{"agent":` + strconv.FormatInt(bh, 10) + `}]}`
	if err := decodeStrict([]byte(clash), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := buildAgent(s); err == nil || !strings.Contains(err.Error(), "transfer_to_billing") {
		t.Fatalf("two handoffs of one name: %v", err)
	} else if ae := toABIError(err); ae.Type != "config" && ae.Type != "invalid_spec" {
		t.Fatalf("two handoffs of one name: %+v", ae)
	}
	s = agentSpec{}
	if err := decodeStrict([]byte(prefix+`{"agent":`+strconv.FormatInt(bh, 10)+`,"description":"bills"}]}`), &s); err != nil {
		t.Fatal(err)
	}
	a, err := buildAgent(s)
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
