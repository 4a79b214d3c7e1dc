package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
)

func TestApprovalDecisionJSON(t *testing.T) {
	var r agent.Resolution
	err := json.Unmarshal([]byte(`{"approvals":[{"id":"a1","approved":true,"reason":"ok","override_arguments":{"x":1}}]}`), &r)
	if err != nil || len(r.Approvals) != 1 || !r.Approvals[0].Approved || r.Approvals[0].Reason != "ok" || string(r.Approvals[0].OverrideArguments) != `{"x":1}` {
		t.Fatalf("Unmarshal = %v, %+v", err, r)
	}
	for text, want := range map[string]string{
		`{"id":"a1"}`:                            `approval decision "a1" needs an explicit approved: bool`,
		`{"id":"a1","approved":null}`:            `approval decision "a1" needs an explicit approved: bool`,
		`{"id":"a1","approved":true,"reasn":""}`: `unknown field "reasn"`,
	} {
		d := agent.ApprovalDecision{ID: "kept"}
		err := json.Unmarshal([]byte(text), &d)
		if !errors.Is(err, agent.ErrInvalidDecision) || !errors.Is(err, agent.ErrState) || !strings.Contains(err.Error(), want) || d.ID != "kept" {
			t.Errorf("%s: err = %v, decision %+v; want %q", text, err, d, want)
		}
	}
	b, err := json.Marshal(agent.ApprovalDecision{ID: "a1"})
	var back agent.ApprovalDecision
	if err != nil || json.Unmarshal(b, &back) != nil || back.ID != "a1" || back.Approved {
		t.Fatalf("round trip: %s, %v, %+v", b, err, back)
	}
}
