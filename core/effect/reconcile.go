package effect

import (
	"context"
	"encoding/json"
)

// Verdict is what a Reconciler learned about an effect found started.
type Verdict int

const (
	// VerdictAmbiguous: the target could not tell. It is the zero value,
	// so a Reconciliation left empty fails closed.
	VerdictAmbiguous Verdict = iota
	// VerdictNotExecuted: proof that the effect did not happen; it may run
	// now, whatever its class.
	VerdictNotExecuted
	// VerdictCompleted: the effect happened, with the given output; it is
	// recorded as completed and replayed.
	VerdictCompleted
)

// Reconciliation is a Reconciler's answer.
type Reconciliation struct {
	Verdict Verdict
	// Output is the completed effect's result (VerdictCompleted only).
	Output json.RawMessage
}

// Reconciler asks the target of an effect what became of it, closing the
// window between "started" being written and the result being recorded
// (a crash, a lost connection, a cancelled call).
//
// Reconcile must not perform the effect. It returns an error only when it
// could not ask (the record then stays started and the handler does not
// run); an answer of "cannot tell" is VerdictAmbiguous, which leaves the
// decision to the Executor's RecoveryPolicy.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Reconciliation, error)
}

// ReconcilerFunc is an adapter to allow the use of ordinary functions as
// Reconcilers.
type ReconcilerFunc func(ctx context.Context, req Request) (Reconciliation, error)

// Reconcile calls f(ctx, req).
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Reconciliation, error) {
	return f(ctx, req)
}
