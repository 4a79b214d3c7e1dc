package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ParentEndResult says how a parent-end action settled.
type ParentEndResult string

// Parent-end results.
const (
	// ParentEndAbandoned: the policy was ParentEndAbandon; nothing ran.
	ParentEndAbandoned ParentEndResult = "abandoned"
	// ParentEndCancelled: the process was cancelled; Receipt is the
	// cancellation's receipt.
	ParentEndCancelled ParentEndResult = "cancelled"
	// ParentEndRefused: the cancellation was refused (the process had
	// ended already); Code and Message say why.
	ParentEndRefused ParentEndResult = "refused"
)

// ParentEndOutcome is the settled parent-end action of one started
// process.
type ParentEndOutcome struct {
	Identity  Identity        `json:"identity"`
	ProcessID string          `json:"process_id"`
	Policy    ParentEndPolicy `json:"policy"`
	Result    ParentEndResult `json:"result"`
	Receipt   json.RawMessage `json:"receipt,omitempty"`
	Code      string          `json:"code,omitempty"`
	Message   string          `json:"message,omitempty"`
}

// planEntry is one parent-end action a scope keeps.
type planEntry struct {
	Identity  Identity  `json:"identity"`
	ParentEnd ParentEnd `json:"parent_end"`
}

func planStream(session string, scope Scope) string {
	return path("parent-end-plan", session, string(scope.Kind), scope.ID)
}

// plan adds an executed start's parent-end action to its scope's plan,
// once (a redrive finds it there).
func (r *Realiser) plan(ctx context.Context, session string, scope Scope, o Outcome) error {
	ex, ok := o.(Executed)
	if !ok || ex.ParentEnd == nil {
		return nil
	}
	body, err := json.Marshal(planEntry{Identity: ex.Identity, ParentEnd: *ex.ParentEnd})
	if err != nil {
		return err
	}
	_, _, err = appendNext(ctx, r.Journal, path("parent-end-plan", ex.Identity.ReplayKey), planStream(session, scope), body)
	if err != nil {
		return fmt.Errorf("record the parent-end plan: %w", err)
	}
	return nil
}

// SettleParentEnd executes the parent-end actions of the processes
// started in scope of session, in the order they started, and returns
// their outcomes: ParentEndAbandon is a recorded no-op; ParentEndCancel
// is one cancellation under the key "<replay key>:parent-end", whose
// outcome (a receipt, or a refusal for a process that ended already) is
// recorded. Call it when the scope ends. It is safe to call again, and
// to redrive after a crash: settled actions replay their recorded
// outcome, and the others are settled.
func (r *Realiser) SettleParentEnd(ctx context.Context, session string, scope Scope) ([]ParentEndOutcome, error) {
	if err := scope.validate(); err != nil {
		return nil, err
	}
	plan, err := r.Journal.Stream(ctx, planStream(session, scope))
	if err != nil {
		return nil, err
	}
	out := make([]ParentEndOutcome, 0, len(plan))
	for _, pe := range plan {
		var p planEntry
		if err := json.Unmarshal(pe.Body, &p); err != nil {
			return out, fmt.Errorf("%w: parent-end plan %q: %w", ErrInvalid, pe.Key, err)
		}
		o, err := r.settle(ctx, p)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
	return out, nil
}

func (r *Realiser) settle(ctx context.Context, p planEntry) (ParentEndOutcome, error) {
	key := path("parent-end", p.Identity.ReplayKey)
	decode := func(e Entry) (ParentEndOutcome, error) {
		var o ParentEndOutcome
		if err := json.Unmarshal(e.Body, &o); err != nil {
			return o, fmt.Errorf("%w: parent-end outcome %q: %w", ErrInvalid, e.Key, err)
		}
		return o, nil
	}
	if e, err := r.Journal.Get(ctx, key); err == nil {
		return decode(e)
	} else if !isNotFound(err) {
		return ParentEndOutcome{}, err
	}
	o := ParentEndOutcome{Identity: p.Identity, ProcessID: p.ParentEnd.ProcessID, Policy: p.ParentEnd.Policy.Effective()}
	if o.Policy == ParentEndAbandon {
		o.Result = ParentEndAbandoned
	} else {
		receipt, err := r.commands().CancelProcess(ctx, p.Identity.ReplayKey+":parent-end", o.ProcessID, "the parent scope ended")
		var refusal *CommandError
		switch {
		case errors.As(err, &refusal):
			o.Result, o.Code, o.Message = ParentEndRefused, refusal.Code, refusal.Message
		case err != nil:
			return ParentEndOutcome{}, fmt.Errorf("intent: parent end of %q: the cancellation's outcome is unknown: %w", o.ProcessID, err)
		default:
			o.Result, o.Receipt = ParentEndCancelled, receipt
		}
	}
	body, err := json.Marshal(o)
	if err != nil {
		return ParentEndOutcome{}, err
	}
	e, _, err := r.Journal.Append(ctx, Entry{Key: key, Body: body})
	if err != nil {
		return ParentEndOutcome{}, fmt.Errorf("intent: parent end of %q: record: %w", o.ProcessID, err)
	}
	return decode(e)
}
