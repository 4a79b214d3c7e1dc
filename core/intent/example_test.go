package intent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/intent"
)

// A tool attempt that starts a background report and emits a trigger
// instead of doing either itself. Realising the call a second time (after
// a crash, say) replays the recorded outcomes and starts nothing again.
func ExampleRealiser() {
	ctx := context.Background()
	r := &intent.Realiser{Journal: intent.NewMemoryJournal()}
	call := intent.Call{Session: "session-1", Scope: intent.TurnScope("turn-7"), CallID: "call-3"}
	attempt := intent.Done{
		Result: json.RawMessage(`{"queued":true}`),
		Intents: intent.V1(
			&intent.StartProcess{SessionID: "session-1", Request: intent.ProcessStartRequest{Originator: "report", Input: json.RawMessage(`{"report":42}`)}},
			&intent.EmitTrigger{SessionID: "session-1", Request: intent.TriggerRequest{SessionID: "session-1", Trigger: "report_queued", IdempotencyKey: "report-42"}},
		),
	}
	for range 2 {
		rep, err := r.Realise(ctx, call, attempt)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("replayed:", rep.Replayed)
		fmt.Println(rep.Intents[1].ModelAddendum())
	}
	settled, _ := r.SettleParentEnd(ctx, "session-1", call.Scope)
	fmt.Println("parent end:", settled[0].Result)
	// Output:
	// replayed: false
	// [tool intent emit_trigger #1 executed: {"trigger":"report_queued","session_id":"session-1","idempotency_key":"report-42","sequence":0,"occurrence":"tool-intent:v1:sha256:81daae686d80c30f0bdeeb4f1572883330c6157962d55c9d6eafd10f7dcf8362","duplicate":false}]
	// replayed: true
	// [tool intent emit_trigger #1 executed: {"trigger":"report_queued","session_id":"session-1","idempotency_key":"report-42","sequence":0,"occurrence":"tool-intent:v1:sha256:81daae686d80c30f0bdeeb4f1572883330c6157962d55c9d6eafd10f7dcf8362","duplicate":false}]
	// parent end: cancelled
}

// The replay key of Lash's golden vector.
func ExampleDeriveIdentity() {
	id, _ := intent.DeriveIdentity("session-fig1292", "turn-7", "call-3", 2)
	fmt.Println(id.ReplayKey)
	// Output:
	// tool-intent:v1:sha256:8cd893b79abe66a4a894753ab43053964c7bc4253a841916235b90aeedf50719
}

// A host outside a turn starts a worker through the ingress of its own
// process scope, and settles its parent-end policy when that scope ends.
func ExampleIngress() {
	ctx := context.Background()
	r := &intent.Realiser{Journal: intent.NewMemoryJournal()}
	ingress, _ := r.ToolIntents("session-1", intent.ProcessScope("host-process"))
	key := ingress.Key("spawn-report-worker", 0)
	start := &intent.StartProcess{SessionID: "session-1", Request: intent.ProcessStartRequest{ID: "replaced-by-the-intent-key", Originator: "report-worker"}}
	for range 2 {
		admitted, err := ingress.Submit(ctx, key, start)
		fmt.Println(admitted.Replayed, admitted.Outcome.(intent.Executed).ParentEnd.ProcessID == admitted.Identity.ReplayKey, err)
	}
	settled, _ := ingress.SettleParentEnd(ctx)
	fmt.Println(len(settled), settled[0].Result)
	// Output:
	// false true <nil>
	// true true <nil>
	// 1 cancelled
}
