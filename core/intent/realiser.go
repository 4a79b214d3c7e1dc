package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Call names one tool call whose attempts declare intents: the tool call
// CallID, in execution scope Scope of session Session.
type Call struct {
	Session string
	Scope   Scope
	CallID  string
}

func (c Call) validate() error {
	if c.Session == "" {
		return fmt.Errorf("%w: a call without a session", ErrInvalid)
	}
	return c.Scope.validate()
}

// attemptKey names the journal entry of attempt n of c ("final" for the
// final one).
func (c Call) attemptKey(n string) string {
	return path("attempt", c.Session, string(c.Scope.Kind), c.Scope.ID, c.CallID, n)
}

// Realiser realises the intents of tool attempts, journal first: the
// final attempt's outcome is committed to the Journal before any intent
// is drained, and every intent's outcome is recorded under its replay key
// before it is reported.
//
// Set the fields before first use and leave them alone after; a Realiser
// is then safe for concurrent use. It holds no other state: every answer
// comes from the journal, so a Realiser built after a crash (in another
// process, over the same database) redrives what the first one left.
type Realiser struct {
	// Journal keeps attempts, outcomes and parent-end plans. Required.
	Journal Journal
	// Commands executes the intents; nil means NewLocal(Journal).
	Commands Commands
	// Pause, if set, is called at each PausePoint (tests use it to crash
	// a process at a chosen point).
	Pause PauseFunc
}

func (r *Realiser) commands() Commands {
	if r.Journal == nil {
		panic("intent: Realiser has no Journal")
	}
	if r.Commands != nil {
		return r.Commands
	}
	return NewLocal(r.Journal)
}

func (r *Realiser) pause(ctx context.Context, p PausePoint) {
	if r.Pause != nil {
		r.Pause(ctx, p)
	}
}

// Report is what became of a call.
type Report struct {
	// Outcome is the final attempt's outcome, as the journal recorded it.
	Outcome AttemptOutcome
	// Attempt is the final attempt's number (from 1).
	Attempt int
	// Replayed is set when the final attempt was read from the journal
	// rather than run (or committed) by this call.
	Replayed bool
	// Intents are the outcomes of the final attempt's intents, in source
	// order (nil for a pending attempt or one without intents).
	Intents []Outcome
}

// attemptRecord is the journal body of one attempt.
type attemptRecord struct {
	Attempt int             `json:"attempt"`
	Final   bool            `json:"final"`
	Outcome json.RawMessage `json:"outcome"`
	// DiscardedIntents counts the intents of a non-final attempt, which
	// are never realised.
	DiscardedIntents int `json:"discarded_intents,omitempty"`
}

// Commit records o as call's final attempt (attempt 1, unless Run decides
// otherwise) and returns the outcome as the journal holds it, with
// replayed set when an earlier commit's outcome was found (o is then
// ignored: the first commit wins). A context that has ended fails before
// anything is written, and then nothing of o will ever be realised.
func (r *Realiser) Commit(ctx context.Context, call Call, o AttemptOutcome) (AttemptOutcome, bool, error) {
	return r.commit(ctx, call, 1, o)
}

func (r *Realiser) commit(ctx context.Context, call Call, n int, o AttemptOutcome) (AttemptOutcome, bool, error) {
	if err := call.validate(); err != nil {
		return nil, false, err
	}
	raw, err := MarshalAttempt(o)
	if err != nil {
		return nil, false, err
	}
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("intent: call %q: not committed: %w", call.CallID, err)
	}
	body, err := json.Marshal(attemptRecord{Attempt: n, Final: true, Outcome: raw})
	if err != nil {
		return nil, false, err
	}
	e, existed, err := r.Journal.Append(ctx, Entry{Key: call.attemptKey("final"), Body: body})
	if err != nil {
		return nil, false, fmt.Errorf("intent: call %q: commit the attempt: %w", call.CallID, err)
	}
	out, _, err := decodeAttempt(e)
	return out, existed, err
}

func decodeAttempt(e Entry) (AttemptOutcome, int, error) {
	var rec attemptRecord
	if err := json.Unmarshal(e.Body, &rec); err != nil {
		return nil, 0, fmt.Errorf("%w: attempt %q: %w", ErrInvalid, e.Key, err)
	}
	o, err := UnmarshalAttempt(rec.Outcome)
	return o, rec.Attempt, err
}

// Realise commits o as call's final attempt, then drains its intents
// (see Commit and Drain). Once the commit succeeded the intents are
// drained even if ctx ends: a committed result and its intents stand or
// fall together.
func (r *Realiser) Realise(ctx context.Context, call Call, o AttemptOutcome) (Report, error) {
	out, replayed, err := r.Commit(ctx, call, o)
	if err != nil {
		return Report{}, err
	}
	return r.finish(ctx, call, Report{Outcome: out, Attempt: 1, Replayed: replayed})
}

func (r *Realiser) finish(ctx context.Context, call Call, rep Report) (Report, error) {
	ctx = context.WithoutCancel(ctx)
	r.pause(ctx, AfterToolAttemptCommit())
	d, ok := rep.Outcome.(Done)
	if !ok {
		return rep, nil
	}
	var err error
	rep.Intents, err = r.Drain(ctx, call, d)
	return rep, err
}

// AttemptFunc runs attempt n (from 1) of a tool call.
type AttemptFunc func(ctx context.Context, n int) AttemptOutcome

// RetryPolicy decides whether a Done attempt is retried. The zero value
// never retries.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts (values below 1 mean 1).
	MaxAttempts int
	// Retry reports whether a Done attempt failed in a way that is safe
	// to run again.
	Retry func(Done) bool
}

// Run runs call's attempts through the journal and realises the final
// one's intents. Each attempt is recorded when it ends: a non-final one
// (a Done the policy retries) without its intents, which are discarded
// and never realised; the final one (a Pending, a Done not retried, or
// the last allowed) with them, committed before any is drained. A redrive
// replays recorded attempts without calling attempt, and resumes at the
// first unrecorded one; the body of an attempt that was running when the
// process died runs again (side effects inside an attempt are at least
// once: durable ones belong in intents).
//
// If ctx ends before the final attempt is committed, no intent is
// realised and ctx's error is returned.
func (r *Realiser) Run(ctx context.Context, call Call, policy RetryPolicy, attempt AttemptFunc) (Report, error) {
	if err := call.validate(); err != nil {
		return Report{}, err
	}
	if e, err := r.Journal.Get(ctx, call.attemptKey("final")); err == nil {
		out, n, err := decodeAttempt(e)
		if err != nil {
			return Report{}, err
		}
		return r.finish(ctx, call, Report{Outcome: out, Attempt: n, Replayed: true})
	} else if !isNotFound(err) {
		return Report{}, err
	}
	maxAttempts := max(policy.MaxAttempts, 1)
	for n := 1; ; n++ {
		key := call.attemptKey(strconv.Itoa(n))
		if _, err := r.Journal.Get(ctx, key); err == nil {
			continue // a non-final attempt recorded before a crash
		} else if !isNotFound(err) {
			return Report{}, err
		}
		if err := ctx.Err(); err != nil {
			return Report{}, fmt.Errorf("intent: call %q: attempt %d not run: %w", call.CallID, n, err)
		}
		o := attempt(ctx, n)
		if o == nil {
			return Report{}, fmt.Errorf("%w: call %q: attempt %d returned no outcome", ErrInvalid, call.CallID, n)
		}
		d, done := o.(Done)
		if done && n < maxAttempts && policy.Retry != nil && policy.Retry(d) && ctx.Err() == nil {
			raw, err := MarshalAttempt(Done{Result: d.Result})
			if err != nil {
				return Report{}, err
			}
			body, _ := json.Marshal(attemptRecord{Attempt: n, Outcome: raw, DiscardedIntents: len(d.Intents.Intents)})
			if _, _, err := r.Journal.Append(ctx, Entry{Key: key, Body: body}); err != nil {
				return Report{}, fmt.Errorf("intent: call %q: record attempt %d: %w", call.CallID, n, err)
			}
			continue
		}
		out, replayed, err := r.commit(ctx, call, n, o)
		if err != nil {
			return Report{}, err
		}
		return r.finish(ctx, call, Report{Outcome: out, Attempt: n, Replayed: replayed})
	}
}

// Drain admits d's intents (see Admit) and realises them in source
// order, each under its replay key, and returns their outcomes. An intent
// whose outcome is recorded is not executed again: its recorded outcome
// is returned, byte for byte, whatever the live state is now. One whose
// outcome is not recorded is executed through Commands, which replays
// the command's first outcome if it ran before a crash, and then
// recorded. A refused batch executes nothing and returns the refusals.
//
// Drain stops at the first intent whose command ends with an unknown
// outcome (an error that is not a *CommandError) or whose outcome cannot
// be recorded, and returns the outcomes before it with the error; calling
// it again resumes there. d must be the call's committed final attempt.
func (r *Realiser) Drain(ctx context.Context, call Call, d Done) ([]Outcome, error) {
	decl, refused := Admit(call.Session, call.Scope.ID, call.CallID, d.Intents)
	if refused != nil {
		return refused, nil
	}
	out := make([]Outcome, 0, len(decl))
	for i, dc := range decl {
		o, err := r.realiseOne(ctx, call.Session, call.Scope, i, dc)
		if err != nil {
			return out, fmt.Errorf("intent: call %q: intent #%d: %w", call.CallID, i, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func outcomeKey(replayKey string) string { return path("outcome", replayKey) }

// realiseOne realises one admitted intent (the i-th of its batch, for
// the pause points).
func (r *Realiser) realiseOne(ctx context.Context, session string, scope Scope, i int, dc Declared) (Outcome, error) {
	key := outcomeKey(dc.Identity.ReplayKey)
	if e, err := r.Journal.Get(ctx, key); err == nil {
		o, err := UnmarshalOutcome(e.Body)
		if err != nil {
			return nil, err
		}
		return o, r.plan(ctx, session, scope, o)
	} else if !isNotFound(err) {
		return nil, err
	}
	r.pause(ctx, BeforeProcessCommand(i))
	res, err := execute(ctx, r.commands(), dc)
	var o Outcome
	var refusal *CommandError
	switch {
	case errors.As(err, &refusal):
		id := dc.Identity
		o = Refused{Identity: &id, IntentIndex: id.IntentIndex, Kind: dc.Intent.Kind(), Refusal: Refusal{Code: RefusalCommandFailed, CommandCode: refusal.Code, Message: refusal.Message}}
	case err != nil:
		return nil, fmt.Errorf("the command's outcome is unknown: %w", err)
	default:
		ex := Executed{Identity: dc.Identity, Kind: dc.Intent.Kind(), Result: res}
		if s, ok := dc.Intent.(*StartProcess); ok {
			ex.ParentEnd = &ParentEnd{ProcessID: dc.Identity.ReplayKey, Policy: s.OnParentEnd.Effective()}
		}
		o = ex
	}
	r.pause(ctx, AfterProcessCommandCommit(i))
	body, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("%w: encode the outcome: %w", ErrInvalid, err)
	}
	e, _, err := r.Journal.Append(ctx, Entry{Key: key, Body: body})
	if err != nil {
		return nil, fmt.Errorf("record the outcome: %w", err)
	}
	if o, err = UnmarshalOutcome(e.Body); err != nil {
		return nil, err
	}
	return o, r.plan(ctx, session, scope, o)
}
