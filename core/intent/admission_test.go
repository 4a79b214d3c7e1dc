package intent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
)

func cancelIntent(session string, i int) intent.Intent {
	return &intent.CancelProcess{SessionID: session, ProcessID: "p" + string(rune('a'+i%26))}
}

// wantAllRefused checks that every intent of a batch of n was refused
// with code, and nothing declared.
func wantAllRefused(t *testing.T, decl []intent.Declared, out []intent.Outcome, n int, code intent.RefusalCode) []intent.Refused {
	t.Helper()
	if decl != nil || len(out) != n {
		t.Fatalf("%d declared, %d outcomes; want 0 and %d", len(decl), len(out), n)
	}
	refs := make([]intent.Refused, n)
	for i, o := range out {
		r, ok := o.(intent.Refused)
		if !ok || r.Refusal.Code != code || r.IntentIndex != uint32(i) {
			t.Fatalf("outcome %d = %#v, want refused %s", i, o, code)
		}
		refs[i] = r
	}
	return refs
}

func TestAdmissionIsAllOrNothingForTotalCountOverflow(t *testing.T) {
	var ins []intent.Intent
	for i := range intent.MaxCount + 1 {
		if i%2 == 0 {
			ins = append(ins, cancelIntent("s", i))
		} else {
			ins = append(ins, &intent.EmitProcessEvent{SessionID: "s", ProcessID: "p", EventType: "e"})
		}
	}
	decl, out := intent.Admit("s", "turn-1", "call-1", intent.V1(ins...))
	wantAllRefused(t, decl, out, intent.MaxCount+1, intent.RefusalCountBudgetExceeded)
	// Exactly at the limit, admitted.
	decl, out = intent.Admit("s", "turn-1", "call-1", intent.V1(ins[:intent.MaxCount]...))
	if len(decl) != intent.MaxCount || out != nil {
		t.Fatalf("at the limit: %d declared, %v", len(decl), out)
	}
}

func TestAdmissionIsAllOrNothingForPerKindOverflow(t *testing.T) {
	ins := []intent.Intent{&intent.EmitProcessEvent{SessionID: "s", ProcessID: "p", EventType: "e"}}
	for i := range intent.MaxPerKind + 1 {
		ins = append(ins, cancelIntent("s", i))
	}
	decl, out := intent.Admit("s", "turn-1", "call-1", intent.V1(ins...))
	refs := wantAllRefused(t, decl, out, len(ins), intent.RefusalPerKindBudgetExceeded)
	if refs[0].Refusal.Kind != intent.KindCancelProcess || refs[0].Kind != intent.KindEmitProcessEvent {
		t.Fatalf("refusal %+v", refs[0])
	}
}

func TestAdmissionIsAllOrNothingForCanonicalByteOverflow(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", intent.MaxCanonicalBytes) + `"`)
	ins := []intent.Intent{cancelIntent("s", 0), &intent.EmitProcessEvent{SessionID: "s", ProcessID: "p", EventType: "e", Payload: big}}
	decl, out := intent.Admit("s", "turn-1", "call-1", intent.V1(ins...))
	wantAllRefused(t, decl, out, 2, intent.RefusalCanonicalByteBudgetExceeded)
	// Whitespace does not count: the canonical form is measured.
	spaced := json.RawMessage(`{"a":` + strings.Repeat(" ", intent.MaxCanonicalBytes) + `1}`)
	decl, out = intent.Admit("s", "turn-1", "call-1", intent.V1(&intent.EmitProcessEvent{SessionID: "s", ProcessID: "p", EventType: "e", Payload: spaced}))
	if len(decl) != 1 || out != nil {
		t.Fatalf("spaced payload: %v", out)
	}
}

func TestAdmissionRefusesTheEntireBatchOnSessionMismatch(t *testing.T) {
	decl, out := intent.Admit("s", "turn-1", "call-1", intent.V1(cancelIntent("s", 0), cancelIntent("other", 1), cancelIntent("s", 2)))
	refs := wantAllRefused(t, decl, out, 3, intent.RefusalSessionMismatch)
	if r := refs[2].Refusal; r.Expected != "s" || r.Recorded != "other" {
		t.Fatalf("refusal %+v", r)
	}
	if refs[1].Identity == nil || refs[1].Identity.IntentIndex != 1 {
		t.Fatalf("refusals carry their identity: %+v", refs[1])
	}
}

func TestProtocolDispatchRefusesFabricatedV0AndV2Records(t *testing.T) {
	for _, v := range []uint16{0, 2} {
		decl, out := intent.Admit("s", "turn-1", "call-1", intent.Intents{ProtocolVersion: v, Intents: []intent.Intent{cancelIntent("s", 0)}})
		refs := wantAllRefused(t, decl, out, 1, intent.RefusalUnsupportedProtocolVersion)
		if *refs[0].Refusal.RecordedVersion != v {
			t.Fatalf("v%d: recorded %d", v, *refs[0].Refusal.RecordedVersion)
		}
	}
	// An empty batch of another version has no intent to refuse.
	_, out := intent.Admit("s", "turn-1", "call-1", intent.Intents{ProtocolVersion: 2})
	if len(out) != 1 || out[0].ModelAddendum() != "[tool intent batch refused: unsupported_protocol_version]" {
		t.Fatalf("empty v2: %v", out)
	}
	// An empty v1 batch is a no-op.
	if decl, out := intent.Admit("s", "turn-1", "call-1", intent.V1()); decl != nil || out != nil {
		t.Fatal("empty v1 batch")
	}
}

func TestAdmissionRefusesAMissingToolCallID(t *testing.T) {
	decl, out := intent.Admit("s", "turn-1", "", intent.V1(cancelIntent("s", 0)))
	refs := wantAllRefused(t, decl, out, 1, intent.RefusalMissingToolCallID)
	if refs[0].Identity != nil {
		t.Fatal("an identity without a call id")
	}
}

func TestAdmittedIntentsCarryTheirIdentitiesInSourceOrder(t *testing.T) {
	decl, out := intent.Admit("session-fig1292", "turn-7", "call-3", intent.V1(cancelIntent("session-fig1292", 0), cancelIntent("session-fig1292", 1), cancelIntent("session-fig1292", 2)))
	if out != nil || len(decl) != 3 {
		t.Fatal(out)
	}
	if decl[2].Identity.ReplayKey != "tool-intent:v1:sha256:8cd893b79abe66a4a894753ab43053964c7bc4253a841916235b90aeedf50719" {
		t.Fatalf("identity %+v", decl[2].Identity)
	}
}

func TestOutcomeModelAddendaHaveLiteralStableText(t *testing.T) {
	id, _ := intent.DeriveIdentity("s", "turn-1", "call-1", 4)
	exec := intent.Executed{Identity: id, Kind: intent.KindCancelProcess, Result: json.RawMessage(`{"process_id":"p","cancelled":true}`)}
	if got := exec.ModelAddendum(); got != `[tool intent cancel_process #4 executed: {"process_id":"p","cancelled":true}]` {
		t.Fatalf("executed: %s", got)
	}
	_, out := intent.Admit("s", "turn-1", "call-1", intent.Intents{ProtocolVersion: 2, Intents: []intent.Intent{&intent.StartProcess{SessionID: "s"}}})
	if got := out[0].ModelAddendum(); got != "[tool intent start_process #0 refused: unsupported_protocol_version]" {
		t.Fatalf("refused: %s", got)
	}
	if got := (intent.ProtocolRefused{Refusal: intent.Refusal{Code: intent.RefusalCountBudgetExceeded}}).ModelAddendum(); got != "[tool intent batch refused: count_budget_exceeded]" {
		t.Fatalf("protocol refused: %s", got)
	}
}

func TestOutcomeJSONRoundTrips(t *testing.T) {
	id, _ := intent.DeriveIdentity("s", "turn-1", "call-1", 0)
	v := uint16(2)
	for _, o := range []intent.Outcome{
		intent.Executed{Identity: id, Kind: intent.KindStartProcess, Result: json.RawMessage(`{"process_id":"x"}`), ParentEnd: &intent.ParentEnd{ProcessID: "x", Policy: intent.ParentEndCancel}},
		intent.Refused{Identity: &id, Kind: intent.KindSignalProcess, Refusal: intent.Refusal{Code: intent.RefusalCommandFailed, CommandCode: "process_not_visible", Message: "no process p"}},
		intent.Refused{Kind: intent.KindSignalProcess, Refusal: intent.Refusal{Code: intent.RefusalUnsupportedProtocolVersion, RecordedVersion: &v}},
		intent.ProtocolRefused{Refusal: intent.Refusal{Code: intent.RefusalUnsupportedProtocolVersion, RecordedVersion: &v}},
	} {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := intent.UnmarshalOutcome(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(b) {
			t.Fatalf("round trip:\n%s\n%s", b, again)
		}
	}
	want := `{"status":"executed","identity":{"session_id":"s","execution_scope_id":"turn-1","tool_call_id":"call-1","intent_index":0,"replay_key":"` + id.ReplayKey + `"},"kind":"start_process","result":{"process_id":"x"},"parent_end":{"process_id":"x","policy":"cancel"}}`
	b, _ := json.Marshal(intent.Executed{Identity: id, Kind: intent.KindStartProcess, Result: json.RawMessage(`{"process_id":"x"}`), ParentEnd: &intent.ParentEnd{ProcessID: "x", Policy: intent.ParentEndCancel}})
	if string(b) != want {
		t.Fatalf("executed JSON:\n%s\nwant\n%s", b, want)
	}
}
