package effect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Outcome is what a handler returns when the effect ran to its end. A
// tool that ran and answered with an application error (a tool-level
// failure the model reads) has completed too: its handler returns that
// answer as an Outcome, so it is recorded and replayed like a success.
type Outcome struct {
	// Output is the result to record and replay, as JSON. Nil is recorded
	// as null.
	Output json.RawMessage
}

// Handler performs an effect once. It returns an Outcome when the effect
// ran; an error when it did not finish. The error is ambiguous (the effect
// may have happened) unless it is marked with NotExecuted.
type Handler func(ctx context.Context) (Outcome, error)

// Result is a settled effect's output.
type Result struct {
	// ID is the effect's record id: the request's, or that of the earlier
	// attempt whose record the key found.
	ID string
	// Output is the recorded output, byte for byte what the handler
	// returned when it ran.
	Output json.RawMessage
	// Replayed is set when the output comes from the journal (a completed
	// record, or a Reconciler's answer) and the handler was not called.
	Replayed bool
}

// notExecuted marks a handler failure that proves the effect did not
// happen.
type notExecuted struct{ err error }

func (e *notExecuted) Error() string { return e.err.Error() }
func (e *notExecuted) Unwrap() error { return e.err }

// NotExecuted marks err as a failure that happened before the effect could
// take place (the target refused the request, a precondition failed), so
// that Execute records it as failed instead of leaving the effect
// ambiguous. Mark nothing that may have reached the target: an unmarked
// error fails closed. NotExecuted(nil) is nil.
func NotExecuted(err error) error {
	if err == nil {
		return nil
	}
	return &notExecuted{err}
}

// IsNotExecuted reports whether err (or an error it wraps) was marked with
// NotExecuted.
func IsNotExecuted(err error) bool {
	var m *notExecuted
	return errors.As(err, &m)
}

// maxRaces bounds how often one Execute re-reads a record that another
// worker moved on. Records only move forward, so a few re-reads settle any
// race but a pathological one, which ends in ErrConflict.
const maxRaces = 8

// Executor runs effects through a write-ahead journal: the intent is
// recorded before the handler runs, the outcome after, so an effect that
// completed is replayed rather than repeated, and one whose outcome is
// unknown is never repeated blindly.
//
// Set the fields before the first Execute and leave them alone after; an
// Executor is then safe for concurrent use (if its Store and Reconciler
// are). It holds no other state, so building one per run is cheap.
type Executor struct {
	// Store keeps the records. It is required.
	Store Store
	// Reconciler, if set, is asked about records found started.
	Reconciler Reconciler
	// Recovery decides about started records the Reconciler did not settle
	// (the zero value is RecoveryRejectAmbiguous).
	Recovery RecoveryPolicy
}

// Execute runs handler at most once as the effect req, or replays what an
// earlier attempt recorded:
//
//  1. Open: a fresh effect's record is created started (revision 0) and
//     the handler runs at once, as in 3. If req.Key (or, without a key,
//     req.ID) already has a record, that record must describe the same
//     effect (tool, class, key, canonical input), else
//     ErrIdempotencyConflict, and its state decides:
//  2. Completed: the stored output is returned with Replayed set; the
//     handler is not called. Failed: the stored failure is returned (a
//     *FailedError with Replayed set); the handler is not called.
//  3. Prepared (see Prepare): the record becomes started, then the
//     handler runs. Its Outcome is recorded as completed. A NotExecuted
//     error is recorded as failed and returned as a *FailedError. Any
//     other error, and any error after ctx ended, leaves the record
//     started and returns an *AmbiguousError wrapping it.
//  4. Started (an earlier attempt crashed, failed ambiguously or runs
//     elsewhere): the Reconciler, if any, is asked. VerdictCompleted
//     records and replays its output; VerdictNotExecuted runs the handler
//     as in 3; a reconciler error returns ErrReconciliation without
//     running it. Otherwise the Recovery policy decides: under
//     RecoveryRetrySafe a retry-safe effect runs as in 3; anything else
//     returns an *AmbiguousError.
//
// A fresh record is not written prepared first: nothing happens between
// the two writes, so the extra commit would close no crash window (a
// crash before the one write leaves no record, which is as safe as a
// prepared one). Creating first and reading only when the id or key is
// taken keeps a fresh call to two commits and no read.
//
// Each step is a compare-and-swap, so when several workers race on one
// effect, one of them runs it; the others replay it or get ErrAmbiguous.
// Execute calls the handler at most once: a caller that retries
// unexpected failures does so inside the handler (when RetrySafe allows)
// or by calling Execute again under RecoveryRetrySafe.
//
// A request with an empty ID gets NewID(). A malformed request fails with
// ErrInvalid before anything is stored, and a context that has already
// ended fails before anything runs. If the handler completes but its
// completion cannot be recorded, Execute returns the output in Result
// together with the error (the record stays started). A handler that
// panics leaves the record started; the panic propagates.
func (e *Executor) Execute(ctx context.Context, req Request, handler Handler) (Result, error) {
	if handler == nil {
		panic("effect: Execute with a nil handler")
	}
	req, err := e.check(ctx, req)
	if err != nil {
		return Result{}, err
	}
	rec, fresh, err := e.open(ctx, req, StateStarted)
	if err != nil {
		return Result{}, err
	}
	if fresh {
		return e.perform(ctx, rec, handler)
	}
	for range maxRaces {
		res, lost, err := e.step(ctx, rec, handler)
		if !lost {
			return res, err
		}
		// Another worker moved the record on: act on what it wrote.
		id := rec.Request.ID
		if rec, err = e.Store.Load(ctx, id); err != nil {
			return Result{}, fmt.Errorf("effect %q: reload: %w", id, err)
		}
	}
	return Result{}, fmt.Errorf("effect %q: lost %d races in a row: %w", rec.Request.ID, maxRaces, ErrConflict)
}

// Prepare records the intent to run req without running it, and returns
// its record: a new one, prepared, or the earlier attempt's record for the
// same effect, in whatever state it is (ErrIdempotencyConflict if it
// records another effect). A later Execute of req (of a keyless req, with
// the returned record's ID) starts a prepared record like any fresh
// effect; a crash in between leaves an intent that certainly did not run.
//
// Use it to record a whole batch of calls before any of them runs, or a
// call that waits (for approval, for a deferred result) before it may
// run.
func (e *Executor) Prepare(ctx context.Context, req Request) (Record, error) {
	req, err := e.check(ctx, req)
	if err != nil {
		return Record{}, err
	}
	rec, _, err := e.open(ctx, req, StatePrepared)
	return rec, err
}

// check validates req (filling in its id and canonicalising its input)
// and that ctx has not ended.
func (e *Executor) check(ctx context.Context, req Request) (Request, error) {
	if e.Store == nil {
		panic("effect: Executor has no Store")
	}
	if req.ID == "" {
		req.ID = NewID()
	}
	if err := req.validateFields(); err != nil {
		return req, err
	}
	in, err := Canonical(req.Input)
	if err != nil {
		return req, fmt.Errorf("effect %q: %w", req.ID, err)
	}
	req.Input = in
	if err := ctx.Err(); err != nil {
		return req, fmt.Errorf("effect %q: not started: %w", req.ID, err)
	}
	return req, nil
}

// open creates req's record in state, or finds the record that already
// has its key (or, without a key, its id). fresh reports a creation.
func (e *Executor) open(ctx context.Context, req Request, state State) (rec Record, fresh bool, err error) {
	rec = Record{Request: req, Status: Status{State: state}}
	err = e.Store.CompareAndSwap(ctx, rec, CreateOnly)
	if err == nil {
		return rec, true, nil
	}
	if !errors.Is(err, ErrConflict) {
		return Record{}, false, fmt.Errorf("effect %q: record: %w", req.ID, err)
	}
	// The key or the id is taken: by an earlier attempt at this effect,
	// or by another effect.
	if req.Key != "" {
		rec, err = e.Store.FindByKey(ctx, req.Key)
		if err == nil {
			return rec, false, same(rec, req)
		}
		if !errors.Is(err, ErrNotFound) {
			return Record{}, false, fmt.Errorf("effect %q: resolve: %w", req.ID, err)
		}
	}
	// Without a key, or with a key nobody has: the id is taken.
	rec, err = e.Store.Load(ctx, req.ID)
	if err == nil {
		return rec, false, same(rec, req)
	}
	if !errors.Is(err, ErrNotFound) {
		return Record{}, false, fmt.Errorf("effect %q: resolve: %w", req.ID, err)
	}
	return Record{}, false, fmt.Errorf("effect %q: record: the id or key was taken, then vanished: %w", req.ID, ErrConflict)
}

// same fails with ErrIdempotencyConflict unless rec records req's effect.
func same(rec Record, req Request) error {
	why := sameEffect(rec.Request, req)
	if why == "" {
		return nil
	}
	if req.Key != "" {
		return fmt.Errorf("effect %q: %w: key %q was recorded (by effect %q) for %s", req.ID, ErrIdempotencyConflict, req.Key, rec.Request.ID, why)
	}
	return fmt.Errorf("effect %q: %w: the id was recorded for %s", req.ID, ErrIdempotencyConflict, why)
}

// step acts on rec's state. lost reports a compare-and-swap lost to
// another worker: the caller reloads the record and steps again.
func (e *Executor) step(ctx context.Context, rec Record, h Handler) (res Result, lost bool, err error) {
	id := rec.Request.ID
	switch rec.Status.State {
	case StateCompleted:
		return Result{ID: id, Output: rec.Status.Output, Replayed: true}, false, nil
	case StateFailed:
		return Result{ID: id}, false, &FailedError{ID: id, Failure: *rec.Status.Error, Replayed: true}
	case StatePrepared:
		return e.run(ctx, rec, h)
	case StateStarted:
		return e.recover(ctx, rec, h)
	}
	return Result{}, false, fmt.Errorf("effect %q: %w: unknown state %q", id, ErrInvalid, string(rec.Status.State))
}

// run claims rec (prepared, or started and cleared to run again) by
// writing it started at the next revision, then performs it.
func (e *Executor) run(ctx context.Context, rec Record, h Handler) (Result, bool, error) {
	id := rec.Request.ID
	if err := ctx.Err(); err != nil {
		return Result{}, false, fmt.Errorf("effect %q: not started: %w", id, err)
	}
	started := Record{Revision: rec.Revision + 1, Request: rec.Request, Status: Status{State: StateStarted}}
	if err := e.Store.CompareAndSwap(ctx, started, rec.Revision); err != nil {
		if errors.Is(err, ErrConflict) {
			return Result{}, true, nil
		}
		return Result{}, false, fmt.Errorf("effect %q: start: %w", id, err)
	}
	res, err := e.perform(ctx, started, h)
	return res, false, err
}

// perform runs the handler of started, a record this call wrote started,
// and records its outcome.
func (e *Executor) perform(ctx context.Context, started Record, h Handler) (Result, error) {
	id := started.Request.ID
	out, herr := h(ctx)

	// From here the effect may have happened: what the handler reported is
	// recorded even if ctx ended meanwhile.
	wctx := context.WithoutCancel(ctx)
	if herr != nil {
		// A failure after cancellation may have cut the effect short at
		// any point, whatever the handler claims.
		if !IsNotExecuted(herr) || ctx.Err() != nil {
			return Result{ID: id}, &AmbiguousError{ID: id, Cause: herr}
		}
		f := newFailure(herr)
		ferr := &FailedError{ID: id, Failure: f, Err: herr}
		failed := Record{Revision: started.Revision + 1, Request: started.Request, Status: Status{State: StateFailed, Error: &f}}
		if err := e.Store.CompareAndSwap(wctx, failed, started.Revision); err != nil {
			return Result{ID: id}, errors.Join(ferr, fmt.Errorf("effect %q: record the failure: %w", id, err))
		}
		return Result{ID: id}, ferr
	}
	output := out.Output
	if output == nil {
		output = json.RawMessage("null")
	}
	if !json.Valid(output) {
		return Result{ID: id}, &AmbiguousError{ID: id, Cause: fmt.Errorf("%w: the handler's output is not JSON", ErrInvalid)}
	}
	done := Record{Revision: started.Revision + 1, Request: started.Request, Status: Status{State: StateCompleted, Output: output}}
	if err := e.Store.CompareAndSwap(wctx, done, started.Revision); err != nil {
		return Result{ID: id, Output: output}, fmt.Errorf("effect %q: executed, but recording its completion failed (the record stays started): %w", id, err)
	}
	return Result{ID: id, Output: output}, nil
}

// recover settles a record found started: reconcile, then apply the
// recovery policy.
func (e *Executor) recover(ctx context.Context, rec Record, h Handler) (Result, bool, error) {
	id := rec.Request.ID
	if e.Reconciler != nil {
		r, err := e.Reconciler.Reconcile(ctx, rec.Clone().Request)
		if err != nil {
			return Result{ID: id}, false, fmt.Errorf("%w: effect %q: %w", ErrReconciliation, id, err)
		}
		switch r.Verdict {
		case VerdictCompleted:
			output := r.Output
			if output == nil {
				output = json.RawMessage("null")
			}
			if !json.Valid(output) {
				return Result{ID: id}, false, fmt.Errorf("%w: effect %q: the reconciled output is not JSON", ErrReconciliation, id)
			}
			done := Record{Revision: rec.Revision + 1, Request: rec.Request, Status: Status{State: StateCompleted, Output: output}}
			if err := e.Store.CompareAndSwap(ctx, done, rec.Revision); err != nil {
				if errors.Is(err, ErrConflict) {
					return Result{}, true, nil
				}
				return Result{ID: id}, false, fmt.Errorf("effect %q: record the reconciled completion: %w", id, err)
			}
			return Result{ID: id, Output: output, Replayed: true}, false, nil
		case VerdictNotExecuted:
			return e.run(ctx, rec, h)
		}
	}
	if e.Recovery.rerun(rec.Request) {
		return e.run(ctx, rec, h)
	}
	return Result{ID: id}, false, &AmbiguousError{ID: id}
}
