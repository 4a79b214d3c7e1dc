package intent

import (
	"encoding/json"
	"fmt"
)

// AttemptOutcome is how one tool attempt ends: [Done] (a result, and the
// intents to realise once the attempt is committed) or [Pending] (the
// result arrives later). The interface is sealed: no other type
// implements it, so an attempt that is pending and carries intents cannot
// be written down. Pending has no place for intents, because a result
// that is not known yet cannot be committed, and intents are realised
// only after a committed result.
type AttemptOutcome interface {
	attemptOutcome()
}

// Done is an attempt that ended with its result.
type Done struct {
	// Result is the tool's output as JSON (a success or a tool-level
	// failure the model reads), recorded and replayed as it is. Nil is
	// recorded as null.
	Result json.RawMessage
	// Intents are the durable actions the attempt declares; the zero value
	// declares none. They are realised only if this attempt is the call's
	// final one.
	Intents Intents
}

// Pending is an attempt whose result will be completed later.
type Pending struct {
	Completion Completion
}

func (Done) attemptOutcome()    {}
func (Pending) attemptOutcome() {}

// Completion describes how a pending result completes.
type Completion struct {
	// DeadlineMS, when positive, is the Unix time in milliseconds by which
	// the result must arrive.
	DeadlineMS int64 `json:"deadline_ms,omitempty"`
	// OnTimeout is what a missed deadline does (the zero value is
	// TimeoutErrorAsResult).
	OnTimeout TimeoutBehavior `json:"on_timeout,omitempty"`
	// OnCancel is what cancelling the waiting call does (the zero value is
	// CancelIgnore).
	OnCancel CancelHint `json:"on_cancel,omitempty"`
	// Announcement, if set, is an event published when the attempt pends.
	Announcement *Announcement `json:"announcement,omitempty"`
}

// TimeoutBehavior is what a pending result's missed deadline does.
type TimeoutBehavior string

// Timeout behaviours.
const (
	TimeoutErrorAsResult TimeoutBehavior = "error_as_result"
	TimeoutFailTurn      TimeoutBehavior = "fail_turn"
)

// CancelHint is what cancelling a pending call asks of the external work.
type CancelHint string

// Cancel hints.
const (
	CancelIgnore             CancelHint = "ignore"
	CancelCancelExternalWork CancelHint = "cancel_external_work"
)

// Announcement is an event a pending attempt publishes.
type Announcement struct {
	EventType string          `json:"event_type"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	ReplayKey string          `json:"replay_key,omitempty"`
}

// attemptJSON is an attempt outcome as the journal stores it, tagged by
// "status": {"status":"done","result":...,"intents":{...}} or
// {"status":"pending","completion":{...}}.
type attemptJSON struct {
	Status     string          `json:"status"`
	Result     json.RawMessage `json:"result,omitempty"`
	Intents    *Intents        `json:"intents,omitempty"`
	Completion *Completion     `json:"completion,omitempty"`
}

// MarshalAttempt encodes an attempt outcome as the journal stores it.
func MarshalAttempt(o AttemptOutcome) ([]byte, error) {
	switch o := o.(type) {
	case Done:
		res := o.Result
		if res == nil {
			res = json.RawMessage("null")
		}
		if !json.Valid(res) {
			return nil, fmt.Errorf("%w: the attempt's result is not JSON", ErrInvalid)
		}
		in := o.Intents
		return json.Marshal(attemptJSON{Status: "done", Result: res, Intents: &in})
	case Pending:
		c := o.Completion
		return json.Marshal(attemptJSON{Status: "pending", Completion: &c})
	}
	return nil, fmt.Errorf("%w: no attempt outcome", ErrInvalid)
}

// UnmarshalAttempt decodes what MarshalAttempt encodes. A pending outcome
// that carries a result or intents is refused.
func UnmarshalAttempt(b []byte) (AttemptOutcome, error) {
	var v attemptJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: attempt outcome: %w", ErrInvalid, err)
	}
	switch v.Status {
	case "done":
		if v.Completion != nil || v.Result == nil {
			return nil, fmt.Errorf("%w: a done attempt has a result and no completion", ErrInvalid)
		}
		d := Done{Result: v.Result}
		if v.Intents != nil {
			d.Intents = *v.Intents
		}
		return d, nil
	case "pending":
		if v.Result != nil || v.Intents != nil {
			return nil, fmt.Errorf("%w: a pending attempt carries no result and no intents", ErrInvalid)
		}
		p := Pending{}
		if v.Completion != nil {
			p.Completion = *v.Completion
		}
		return p, nil
	}
	return nil, fmt.Errorf("%w: unknown attempt status %q", ErrInvalid, v.Status)
}
