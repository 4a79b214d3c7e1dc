package intent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
)

func TestIntentJSONIsAdjacentlyTaggedSnakeCase(t *testing.T) {
	cases := []struct {
		in   intent.Intent
		want string
	}{
		{&intent.StartProcess{SessionID: "s", Request: intent.ProcessStartRequest{ID: "host-id", Originator: "report-worker", Input: json.RawMessage(`{"report":42}`)}},
			`{"kind":"start_process","intent":{"session_id":"s","request":{"id":"host-id","originator":"report-worker","input":{"report":42}},"on_parent_end":"cancel"}}`},
		{&intent.StartProcess{SessionID: "s", OnParentEnd: intent.ParentEndAbandon},
			`{"kind":"start_process","intent":{"session_id":"s","request":{"id":""},"on_parent_end":"abandon"}}`},
		{&intent.SignalProcess{SessionID: "s", ProcessID: "p", SignalName: "wake", Payload: json.RawMessage(`1`)},
			`{"kind":"signal_process","intent":{"session_id":"s","process_id":"p","signal_name":"wake","payload":1}}`},
		{&intent.CancelProcess{SessionID: "s", ProcessID: "p", Reason: "done"},
			`{"kind":"cancel_process","intent":{"session_id":"s","process_id":"p","reason":"done"}}`},
		{&intent.EmitProcessEvent{SessionID: "s", ProcessID: "p", EventType: "progress"},
			`{"kind":"emit_process_event","intent":{"session_id":"s","process_id":"p","event_type":"progress"}}`},
		{&intent.EmitTrigger{SessionID: "s", Request: intent.TriggerRequest{SessionID: "t", Trigger: "report_ready", IdempotencyKey: "k1"}},
			`{"kind":"emit_trigger","intent":{"session_id":"s","request":{"session_id":"t","trigger":"report_ready","idempotency_key":"k1"}}}`},
	}
	for _, c := range cases {
		b, err := intent.MarshalIntent(c.in)
		if err != nil || string(b) != c.want {
			t.Fatalf("%s:\n got %s, %v\nwant %s", c.in.Kind(), b, err, c.want)
		}
		back, err := intent.UnmarshalIntent(b)
		if err != nil {
			t.Fatalf("%s: decode: %v", c.in.Kind(), err)
		}
		again, _ := intent.MarshalIntent(back)
		if string(again) != c.want {
			t.Fatalf("%s: round trip gave %s", c.in.Kind(), again)
		}
	}
}

func TestParentEndPolicyDefaultsToCancelAndRefusesTerminate(t *testing.T) {
	in, err := intent.UnmarshalIntent([]byte(`{"kind":"start_process","intent":{"session_id":"s","request":{"id":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := in.(*intent.StartProcess).OnParentEnd; p != intent.ParentEndCancel {
		t.Fatalf("a missing policy decoded as %q, want cancel", p)
	}
	for _, bad := range []string{`"terminate"`, `"Cancel"`, `""`, `1`} {
		_, err := intent.UnmarshalIntent([]byte(`{"kind":"start_process","intent":{"session_id":"s","request":{"id":"x"},"on_parent_end":` + bad + `}}`))
		if !errors.Is(err, intent.ErrInvalid) {
			t.Fatalf("on_parent_end %s: err = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := json.Marshal(intent.ParentEndPolicy("terminate")); err == nil {
		t.Fatal("a terminate policy encoded")
	}
}

func TestUnmarshalIntentRefusesUnknownKindsAndFields(t *testing.T) {
	for _, bad := range []string{
		`{"kind":"kill_process","intent":{}}`,
		`{"kind":"cancel_process"}`,
		`{"kind":"cancel_process","intent":{"session_id":"s","process_id":"p","force":true}}`,
		`[]`,
	} {
		if _, err := intent.UnmarshalIntent([]byte(bad)); !errors.Is(err, intent.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestIntentsBatchJSON(t *testing.T) {
	b := intent.V1(&intent.CancelProcess{SessionID: "s", ProcessID: "p"})
	raw, err := json.Marshal(b)
	want := `{"protocol_version":1,"intents":[{"kind":"cancel_process","intent":{"session_id":"s","process_id":"p"}}]}`
	if err != nil || string(raw) != want {
		t.Fatalf("got %s, %v", raw, err)
	}
	// Another version decodes, for admission to refuse.
	var v2 intent.Intents
	if err := json.Unmarshal([]byte(strings.Replace(want, `:1,`, `:2,`, 1)), &v2); err != nil || v2.ProtocolVersion != 2 || len(v2.Intents) != 1 {
		t.Fatalf("v2: %+v, %v", v2, err)
	}
}

func TestAttemptOutcomeRoundTrip(t *testing.T) {
	done := intent.Done{Result: json.RawMessage(`{"ok":true}`), Intents: intent.V1(&intent.CancelProcess{SessionID: "s", ProcessID: "p"})}
	b, err := intent.MarshalAttempt(done)
	if err != nil {
		t.Fatal(err)
	}
	back, err := intent.UnmarshalAttempt(b)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := back.(intent.Done); !ok || string(d.Result) != `{"ok":true}` || len(d.Intents.Intents) != 1 {
		t.Fatalf("decoded %#v", back)
	}
	p, err := intent.MarshalAttempt(intent.Pending{Completion: intent.Completion{OnTimeout: intent.TimeoutFailTurn}})
	if err != nil || string(p) != `{"status":"pending","completion":{"on_timeout":"fail_turn"}}` {
		t.Fatalf("pending: %s, %v", p, err)
	}
	// A record of a pending attempt that carries intents is refused: the
	// types cannot build one, and the journal must not smuggle one in.
	_, err = intent.UnmarshalAttempt([]byte(`{"status":"pending","intents":{"protocol_version":1,"intents":[]}}`))
	if !errors.Is(err, intent.ErrInvalid) {
		t.Fatalf("pending with intents: err = %v", err)
	}
}

func TestErrorSlugsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range intent.ErrorSlugs() {
		if seen[s] || !strings.HasPrefix(s, "intent_") {
			t.Fatalf("slug %q repeated or unprefixed", s)
		}
		seen[s] = true
	}
	if intent.Slug(intent.ErrForeignSession) != "intent_foreign_session" || intent.Slug(errors.New("x")) != "" {
		t.Fatal("Slug")
	}
}
