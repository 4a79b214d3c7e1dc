package intent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
)

var hostScope = intent.ProcessScope("proc-host")

func hostStart() intent.Intent {
	return &intent.StartProcess{SessionID: session, Request: intent.ProcessStartRequest{ID: "replaced-by-the-intent-key", Originator: "report-worker", Input: json.RawMessage(`{"report":42}`)}}
}

func TestDuplicateHostSubmitReturnsTheSameOutcomeAndRealisesOnce(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	g, err := r.ToolIntents(session, hostScope)
	if err != nil {
		t.Fatal(err)
	}
	first, err := g.Submit(ctx, g.Key("spawn-report-worker", 0), hostStart())
	if err != nil || first.Replayed || first.Kind != intent.KindStartProcess {
		t.Fatalf("%+v, %v", first, err)
	}
	second, err := g.Submit(ctx, g.Key("spawn-report-worker", 0), hostStart())
	if err != nil || !second.Replayed {
		t.Fatalf("%+v, %v", second, err)
	}
	a, _ := json.Marshal(first.Outcome)
	b, _ := json.Marshal(second.Outcome)
	if string(a) != string(b) {
		t.Fatalf("outcomes differ:\n%s\n%s", a, b)
	}
	ex := first.Outcome.(intent.Executed)
	if ex.ParentEnd.ProcessID != first.Identity.ReplayKey {
		t.Fatal("the process id is not the replay key")
	}
	wantOnce(t, c, 1)
	settled, err := g.SettleParentEnd(ctx)
	if err != nil || len(settled) != 1 || settled[0].Result != intent.ParentEndCancelled {
		t.Fatalf("%+v, %v", settled, err)
	}
	again, err := g.SettleParentEnd(ctx)
	if err != nil || len(again) != 1 {
		t.Fatal(err)
	}
}

func TestCrashAfterAdmissionRedrivesToExactlyOneRealisation(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	for _, p := range []intent.PausePoint{intent.BeforeProcessCommand(0), intent.AfterProcessCommandCommit(0)} {
		t.Run(p.String(), func(t *testing.T) {
			r, _ := newRealiser(j)
			r.Pause = crashAt(p)
			g, _ := r.ToolIntents(session, hostScope)
			callID := "spawn-" + p.String()
			runUntilCrash(t, func() { _, _ = g.Submit(ctx, g.Key(callID, 0), hostStart()) })
			r2, _ := newRealiser(j)
			g2, _ := r2.ToolIntents(session, hostScope)
			got, err := g2.Submit(ctx, g2.Key(callID, 0), hostStart())
			if err != nil || !got.Replayed {
				t.Fatalf("%+v, %v", got, err)
			}
			st, err := intent.NewLocal(j).Process(ctx, got.Identity.ReplayKey)
			if err != nil || len(st.Entries) != 1 {
				t.Fatalf("%+v, %v", st, err)
			}
		})
	}
}

func TestIdentityReusedFromStartToEmitIsATypedRefusal(t *testing.T) {
	ctx := context.Background()
	r, c := newRealiser(intent.NewMemoryJournal())
	g, _ := r.ToolIntents(session, hostScope)
	key := g.Key("host-call", 0)
	if _, err := g.Submit(ctx, key, hostStart()); err != nil {
		t.Fatal(err)
	}
	_, err := g.Submit(ctx, key, &intent.EmitProcessEvent{SessionID: session, ProcessID: "p", EventType: "e"})
	if !errors.Is(err, intent.ErrIdentityBoundToDifferentIntent) || intent.Slug(err) != "intent_identity_bound_to_different_intent" {
		t.Fatalf("err = %v", err)
	}
	wantOnce(t, c, 1)
}

func TestRuntimeOwnedIdentityGateIsSharedAcrossIndependentIngressHandles(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	a, _ := newRealiser(j)
	b, c := newRealiser(j)
	ga, _ := a.ToolIntents(session, hostScope)
	gb, _ := b.ToolIntents(session, hostScope)
	if _, err := ga.Submit(ctx, ga.Key("host-call", 0), hostStart()); err != nil {
		t.Fatal(err)
	}
	got, err := gb.Submit(ctx, gb.Key("host-call", 0), hostStart())
	if err != nil || !got.Replayed {
		t.Fatalf("%+v, %v", got, err)
	}
	_, err = gb.Submit(ctx, gb.Key("host-call", 0), &intent.CancelProcess{SessionID: session, ProcessID: "p"})
	if !errors.Is(err, intent.ErrIdentityBoundToDifferentIntent) {
		t.Fatalf("err = %v", err)
	}
	wantOnce(t, c, 0) // b's handle realised nothing: the first realisation stands
}

func TestIngressRefusals(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	g, _ := r.ToolIntents(session, hostScope)
	other, _ := r.ToolIntents("session-2", hostScope)
	otherScope, _ := r.ToolIntents(session, intent.TurnScope("turn-9"))

	// A tool attempt realised this identity.
	turn, _ := r.ToolIntents(session, call.Scope)
	if _, err := r.Realise(ctx, call, intent.Done{Result: json.RawMessage(`1`), Intents: intent.V1(hostStart())}); err != nil {
		t.Fatal(err)
	}
	big := json.RawMessage(`"` + strings.Repeat("x", intent.MaxCanonicalBytes) + `"`)
	for _, tc := range []struct {
		name string
		key  intent.IngressKey
		in   intent.Intent
		want error
	}{
		{"zero key", intent.IngressKey{}, hostStart(), intent.ErrMalformedKey},
		{"no call id", g.Key("", 0), hostStart(), intent.ErrMalformedKey},
		{"index overflow", g.Key("c", -1), hostStart(), intent.ErrMalformedKey},
		{"foreign session", other.Key("c", 0), hostStart(), intent.ErrForeignSession},
		{"foreign scope", otherScope.Key("c", 0), hostStart(), intent.ErrForeignExecutionScope},
		{"intent session", g.Key("c", 0), &intent.CancelProcess{SessionID: "session-2", ProcessID: "p"}, intent.ErrIntentSessionMismatch},
		{"over budget", g.Key("c", 0), &intent.EmitProcessEvent{SessionID: session, ProcessID: "p", EventType: "e", Payload: big}, intent.ErrIntentRefused},
	} {
		_, err := g.Submit(ctx, tc.key, tc.in)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	_, err := turn.Submit(ctx, turn.Key(call.CallID, 0), hostStart())
	if !errors.Is(err, intent.ErrDuplicateIdentity) {
		t.Errorf("a tool attempt's identity: %v", err)
	}
	var refused *intent.RefusedError
	_, err = g.Submit(ctx, g.Key("c", 3), &intent.EmitProcessEvent{SessionID: session, ProcessID: "p", EventType: "e", Payload: big})
	if !errors.As(err, &refused) || refused.Outcome.ModelAddendum() != "[tool intent emit_process_event #3 refused: canonical_byte_budget_exceeded]" {
		t.Fatalf("refused: %v", err)
	}
	wantOnce(t, c, 1) // the tool attempt's start only
}
