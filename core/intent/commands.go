package intent

import (
	"context"
	"encoding/json"
	"errors"
)

// Commands executes the commands intents declare. Every method runs its
// command at most once per replay key: a second call with a key it has
// seen returns the first call's outcome (the same result bytes, or the
// same *CommandError), whatever has happened since, and never re-reads
// live state to decide again. That is what lets a Realiser repeat a
// command whose outcome it had not recorded when it crashed.
//
// A *CommandError is a definite refusal, recorded as the intent's
// outcome; any other error means the outcome is unknown, and the
// Realiser stops (a redrive repeats the command under the same key).
// Local implements Commands in a Journal.
type Commands interface {
	// StartProcess starts the process in.Request, whose id is replayKey.
	StartProcess(ctx context.Context, replayKey string, in *StartProcess) (json.RawMessage, error)
	// SignalProcess delivers a signal; the result is the journaled event,
	// with its "sequence".
	SignalProcess(ctx context.Context, replayKey string, in *SignalProcess) (json.RawMessage, error)
	// CancelProcess cancels processID; the result is a receipt.
	CancelProcess(ctx context.Context, replayKey, processID, reason string) (json.RawMessage, error)
	// EmitProcessEvent appends an event to a process's history.
	EmitProcessEvent(ctx context.Context, replayKey string, in *EmitProcessEvent) (json.RawMessage, error)
	// EmitTrigger emits a trigger occurrence, deduplicated also on the
	// request's idempotency key; the result is a report.
	EmitTrigger(ctx context.Context, replayKey string, req TriggerRequest) (json.RawMessage, error)
}

// Command refusal codes of Local.
const (
	CodeProcessNotVisible         = "process_not_visible"
	CodeProcessAlreadyTerminal    = "process_already_terminal"
	CodeProcessNoLongerRetained   = "process_no_longer_retained"
	CodeTriggerIdempotencyMissing = "trigger_idempotency_key_missing"
)

// CommandError is a command's definite refusal.
type CommandError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *CommandError) Error() string { return "intent: command refused: " + e.Code + ": " + e.Message }

// execute runs d's command through c.
func execute(ctx context.Context, c Commands, d Declared) (json.RawMessage, error) {
	rk := d.Identity.ReplayKey
	switch in := d.Intent.(type) {
	case *StartProcess:
		return c.StartProcess(ctx, rk, in)
	case *SignalProcess:
		return c.SignalProcess(ctx, rk, in)
	case *CancelProcess:
		return c.CancelProcess(ctx, rk, in.ProcessID, in.Reason)
	case *EmitProcessEvent:
		return c.EmitProcessEvent(ctx, rk, in)
	case *EmitTrigger:
		return c.EmitTrigger(ctx, rk, in.Request)
	}
	return nil, errors.New("intent: an intent of an unknown type")
}
