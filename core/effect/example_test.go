package effect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/effect"
)

// A tool call journaled by its position in the turn: the second attempt
// (after a crash, say) replays the recorded output instead of sending the
// message again.
func ExampleExecutor() {
	ctx := context.Background()
	ex := &effect.Executor{Store: effect.NewMemoryStore()}
	send := func(context.Context) (effect.Outcome, error) {
		fmt.Println("sending")
		return effect.Outcome{Output: json.RawMessage(`{"message_id":17}`)}, nil
	}
	for attempt := range 2 {
		res, err := ex.Execute(ctx, effect.Request{
			Key:   effect.Key("session-1", "run-1", 3, 0),
			Tool:  "send_message",
			Class: effect.ClassNonIdempotentWrite,
			Input: json.RawMessage(`{"to":"ada","text":"hi"}`),
		}, send)
		fmt.Println(attempt, string(res.Output), res.Replayed, err)
	}
	// Output:
	// sending
	// 0 {"message_id":17} false <nil>
	// 1 {"message_id":17} true <nil>
}

// A failure whose outcome is unknown is never retried blindly for a
// non-idempotent effect; a Reconciler that can ask the target settles it.
func ExampleReconciler() {
	ctx := context.Background()
	store := effect.NewMemoryStore()
	req := effect.Request{
		Key:   effect.Key("session-1", "run-1", 1, 0),
		Tool:  "charge_card",
		Class: effect.ClassNonIdempotentWrite,
		Input: json.RawMessage(`{"cents":500}`),
	}
	lost := func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{}, errors.New("connection reset after sending")
	}
	_, err := (&effect.Executor{Store: store}).Execute(ctx, req, lost)
	fmt.Println(effect.Slug(err))

	payments := effect.ReconcilerFunc(func(ctx context.Context, r effect.Request) (effect.Reconciliation, error) {
		// Ask the payment service about r.Key here.
		return effect.Reconciliation{Verdict: effect.VerdictCompleted, Output: json.RawMessage(`{"charge":"ch_1"}`)}, nil
	})
	res, err := (&effect.Executor{Store: store, Reconciler: payments}).Execute(ctx, req, lost)
	fmt.Println(string(res.Output), res.Replayed, err)
	// Output:
	// effect_ambiguous
	// {"charge":"ch_1"} true <nil>
}

func ExampleKey() {
	fmt.Println(effect.Key("session-1", "run/7", 2, 1))
	// Output: session/session-1/run/run%2F7/turn/2/call/1
}
