// Package effecttest checks that an effect.Store keeps the journal's
// contract: the compare-and-swap revision rules, and, through an
// effect.Executor, replay, idempotency conflicts, fail-closed ambiguity
// and reconciliation. Every store runs the same suite:
//
//	func TestConformance(t *testing.T) {
//		effecttest.Run(t, func(t *testing.T) effect.Store { return newStore(t) })
//	}
package effecttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Run runs the conformance suite, one subtest per rule, each on a fresh
// store from newStore. Stores that implement effect.BatchStore are also
// checked batch by batch.
func Run(t *testing.T, newStore func(t *testing.T) effect.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s effect.Store)
	}{
		{"CASRevisionRules", testCASRevisionRules},
		{"NotFound", testNotFound},
		{"StoreCopies", testStoreCopies},
		{"CompletedEffectReplayedWithoutHandler", testCompletedReplayed},
		{"OutputReplaysByteForByte", testOutputBytes},
		{"KeyReuseForAnotherEffectConflicts", testKeyReuse},
		{"AmbiguousNonIdempotentEffectNeverRetried", testAmbiguousNeverRetried},
		{"ReconciledCompletionClosesCrashWindow", testReconciledCompletion},
		{"UncertainFailureStaysStartedUntilReconciled", testUncertainThenReconciled},
		{"NotExecutedProofAllowsRerun", testNotExecutedProof},
		{"UnresolvedOrFailedReconciliationNeverRunsHandler", testUnresolvedReconciliation},
		{"StartedRetrySafeEffectRerunsUnderRetrySafePolicy", testRetrySafePolicy},
		{"PreparedIntentRunsOnExecute", testPreparedRuns},
		{"NotExecutedFailureIsFinal", testFailureFinal},
		{"CancellationMidHandlerLeavesStarted", testCancelMidHandler},
		{"CancelledBeforeStartRunsNothing", testCancelledBefore},
		{"ToolLevelFailureIsCompletedAndReplays", testToolLevelFailure},
		{"KeylessEffectsAreFoundByID", testKeyless},
		{"InvalidRequestsStoreNothing", testInvalid},
		{"ConcurrentAttemptsRunOnce", testConcurrent},
		{"Batch", testBatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if tc.name == "Batch" {
				if _, ok := s.(effect.BatchStore); !ok {
					t.Skip("the store does not implement effect.BatchStore")
				}
			}
			tc.fn(t, s)
		})
	}
}

// counter is a handler that counts its calls and returns out.
type counter struct {
	calls atomic.Int32
	out   string
	err   error
}

func (c *counter) handle(ctx context.Context) (effect.Outcome, error) {
	c.calls.Add(1)
	if c.err != nil {
		return effect.Outcome{}, c.err
	}
	return effect.Outcome{Output: json.RawMessage(c.out)}, nil
}

func (c *counter) want(t *testing.T, n int32) {
	t.Helper()
	if got := c.calls.Load(); got != n {
		t.Fatalf("handler ran %d times, want %d", got, n)
	}
}

var keys atomic.Int64

// newReq returns a request of class c with a fresh key (or none).
func newReq(c effect.Class, keyed bool) effect.Request {
	r := effect.Request{ID: effect.NewID(), Tool: "send", Class: c, Input: json.RawMessage(`{"to":"ada","n":1}`)}
	if keyed {
		r.Key = effect.Key("s1", "r1", 1, int(keys.Add(1)))
	}
	return r
}

// again is another attempt at the same call: a fresh id, same key.
func again(r effect.Request) effect.Request {
	r.ID = effect.NewID()
	return r
}

// seed writes req's record through the states given, as a crashed worker
// would have left it, and returns it.
func seed(t *testing.T, s effect.Store, req effect.Request, states ...effect.State) effect.Record {
	t.Helper()
	ctx := context.Background()
	rec := effect.Record{Request: req, Status: effect.Status{State: effect.StatePrepared}}
	if err := s.CompareAndSwap(ctx, rec, effect.CreateOnly); err != nil {
		t.Fatalf("seed: create: %v", err)
	}
	for _, st := range states {
		next := effect.Record{Revision: rec.Revision + 1, Request: req, Status: effect.Status{State: st}}
		if err := s.CompareAndSwap(ctx, next, rec.Revision); err != nil {
			t.Fatalf("seed: %s: %v", st, err)
		}
		rec = next
	}
	return rec
}

// wantRecord checks the stored state and revision of the effect id.
func wantRecord(t *testing.T, s effect.Store, id string, state effect.State, rev uint64) effect.Record {
	t.Helper()
	rec, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	if rec.Status.State != state || rec.Revision != rev {
		t.Fatalf("record is %s at revision %d, want %s at %d", rec.Status.State, rec.Revision, state, rev)
	}
	return rec
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}

func testCASRevisionRules(t *testing.T, s effect.Store) {
	ctx := context.Background()
	req := newReq(effect.ClassIdempotentWrite, true)
	prepared := effect.Record{Request: req, Status: effect.Status{State: effect.StatePrepared}}
	started := effect.Record{Revision: 1, Request: req, Status: effect.Status{State: effect.StateStarted}}

	// Create-only needs revision 0.
	wantErr(t, s.CompareAndSwap(ctx, started, effect.CreateOnly), effect.ErrInvalid)
	if err := s.CompareAndSwap(ctx, prepared, effect.CreateOnly); err != nil {
		t.Fatal(err)
	}
	// The id exists now.
	wantErr(t, s.CompareAndSwap(ctx, prepared, effect.CreateOnly), effect.ErrConflict)
	// Another effect may not take the key.
	other := prepared
	other.Request.ID = effect.NewID()
	wantErr(t, s.CompareAndSwap(ctx, other, effect.CreateOnly), effect.ErrConflict)
	if _, err := s.Load(ctx, other.Request.ID); !errors.Is(err, effect.ErrNotFound) {
		t.Fatalf("a conflicting create wrote a record: %v", err)
	}

	// An update writes expected+1, from the current revision only.
	skip := started
	skip.Revision = 2
	wantErr(t, s.CompareAndSwap(ctx, skip, 0), effect.ErrInvalid)
	if err := s.CompareAndSwap(ctx, started, 0); err != nil {
		t.Fatal(err)
	}
	wantErr(t, s.CompareAndSwap(ctx, started, 0), effect.ErrConflict) // stale: the store is at 1
	wantErr(t, s.CompareAndSwap(ctx, started, 0), storeerr.ErrConflict)
	completed := effect.Record{Revision: 2, Request: req, Status: effect.Status{State: effect.StateCompleted, Output: json.RawMessage(`{"ok":true}`)}}
	if err := s.CompareAndSwap(ctx, completed, 1); err != nil {
		t.Fatal(err)
	}
	got := wantRecord(t, s, req.ID, effect.StateCompleted, 2)
	if string(got.Status.Output) != `{"ok":true}` {
		t.Fatalf("output = %s", got.Status.Output)
	}
	byKey, err := s.FindByKey(ctx, req.Key)
	if err != nil || byKey.Request.ID != req.ID || byKey.Revision != 2 {
		t.Fatalf("FindByKey = %+v, %v", byKey, err)
	}

	// The key is fixed at creation.
	rekey := effect.Record{Revision: 3, Request: req, Status: completed.Status}
	rekey.Request.Key = "another"
	wantErr(t, s.CompareAndSwap(ctx, rekey, 2), effect.ErrConflict)

	// An update of a record that does not exist.
	ghost := started
	ghost.Request.ID = effect.NewID()
	ghost.Request.Key = ""
	wantErr(t, s.CompareAndSwap(ctx, ghost, 0), effect.ErrNotFound)

	// Malformed records are refused before any write.
	bad := prepared
	bad.Request.ID = effect.NewID()
	bad.Request.Key = ""
	bad.Status = effect.Status{State: effect.StateCompleted} // no output
	wantErr(t, s.CompareAndSwap(ctx, bad, effect.CreateOnly), effect.ErrInvalid)
	bad.Status = effect.Status{State: "paused"}
	wantErr(t, s.CompareAndSwap(ctx, bad, effect.CreateOnly), effect.ErrInvalid)
	if _, err := s.Load(ctx, bad.Request.ID); !errors.Is(err, effect.ErrNotFound) {
		t.Fatalf("an invalid record was written: %v", err)
	}
}

func testNotFound(t *testing.T, s effect.Store) {
	ctx := context.Background()
	_, err := s.Load(ctx, effect.NewID())
	wantErr(t, err, effect.ErrNotFound)
	_, err = s.FindByKey(ctx, "no/such/key")
	wantErr(t, err, effect.ErrNotFound)
	_, err = s.FindByKey(ctx, "")
	wantErr(t, err, effect.ErrNotFound)
	// A keyless record is not found by the empty key.
	seed(t, s, newReq(effect.ClassPure, false))
	_, err = s.FindByKey(ctx, "")
	wantErr(t, err, effect.ErrNotFound)
}

func testStoreCopies(t *testing.T, s effect.Store) {
	ctx := context.Background()
	req := newReq(effect.ClassPure, true)
	rec := effect.Record{Request: req, Status: effect.Status{State: effect.StatePrepared}}
	rec.Request.Input = json.RawMessage(`{"a":1}`)
	if err := s.CompareAndSwap(ctx, rec, effect.CreateOnly); err != nil {
		t.Fatal(err)
	}
	rec.Request.Input[1] = 'X' // the caller reuses its buffer
	got, err := s.Load(ctx, req.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Request.Input) != `{"a":1}` {
		t.Fatalf("the store kept the caller's buffer: %s", got.Request.Input)
	}
	got.Request.Input[1] = 'Y'
	again, _ := s.Load(ctx, req.ID)
	if string(again.Request.Input) != `{"a":1}` {
		t.Fatalf("the store returned its own buffer: %s", again.Request.Input)
	}
}

func testCompletedReplayed(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	h := &counter{out: `{"sent":42}`}
	req := newReq(effect.ClassIdempotentWrite, true)
	first, err := ex.Execute(ctx, req, h.handle)
	if err != nil || first.Replayed || first.ID != req.ID || string(first.Output) != `{"sent":42}` {
		t.Fatalf("first = %+v, %v", first, err)
	}
	// A fresh effect is created started (0), then completed (1).
	wantRecord(t, s, req.ID, effect.StateCompleted, 1)
	// Another attempt at the same call (fresh id, same key, arguments
	// re-encoded) replays under both policies, never calling the handler.
	for _, p := range []effect.RecoveryPolicy{effect.RecoveryRejectAmbiguous, effect.RecoveryRetrySafe} {
		r := again(req)
		r.Input = json.RawMessage(` { "n" : 1, "to" : "ada" } `)
		ex := &effect.Executor{Store: s, Recovery: p}
		got, err := ex.Execute(ctx, r, h.handle)
		if err != nil || !got.Replayed || got.ID != req.ID || string(got.Output) != string(first.Output) {
			t.Fatalf("replay under %s = %+v, %v", p, got, err)
		}
	}
	h.want(t, 1)
	wantRecord(t, s, req.ID, effect.StateCompleted, 1)
}

func testOutputBytes(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	// Key order, spacing, number forms and a NUL escape all survive.
	out := `{"z": 1.50, "a" :[1e3, 12345678901234567890], "s":"a\u0000b<&>"}`
	for _, o := range []string{out, `"text"`, `null`, `[]`} {
		h := &counter{out: o}
		req := newReq(effect.ClassIdempotentWrite, true)
		if got, err := ex.Execute(ctx, req, h.handle); err != nil || string(got.Output) != o {
			t.Fatalf("fresh output = %s, %v; want %s", got.Output, err, o)
		}
		got, err := ex.Execute(ctx, again(req), h.handle)
		if err != nil || !got.Replayed || string(got.Output) != o {
			t.Fatalf("replayed output = %s, %v; want %s", got.Output, err, o)
		}
		h.want(t, 1)
	}
	// A handler returning no output records null.
	req := newReq(effect.ClassPure, true)
	nothing := func(context.Context) (effect.Outcome, error) { return effect.Outcome{}, nil }
	if got, err := ex.Execute(ctx, req, nothing); err != nil || string(got.Output) != "null" {
		t.Fatalf("empty output = %s, %v", got.Output, err)
	}
}

func testKeyReuse(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	h := &counter{out: `1`}
	req := newReq(effect.ClassIdempotentWrite, true)
	if _, err := ex.Execute(ctx, req, h.handle); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*effect.Request){
		"input": func(r *effect.Request) { r.Input = json.RawMessage(`{"to":"bob","n":1}`) },
		"tool":  func(r *effect.Request) { r.Tool = "delete" },
		"class": func(r *effect.Request) { r.Class = effect.ClassNonIdempotentWrite },
	} {
		r := again(req)
		change(&r)
		_, err := ex.Execute(ctx, r, h.handle)
		if !errors.Is(err, effect.ErrIdempotencyConflict) || effect.Slug(err) != "effect_idempotency_conflict" {
			t.Fatalf("%s changed: error = %v, want an idempotency conflict", name, err)
		}
		if _, err := s.Load(ctx, r.ID); !errors.Is(err, effect.ErrNotFound) {
			t.Fatalf("%s changed: the conflicting attempt wrote a record: %v", name, err)
		}
	}
	// The id of a recorded effect cannot be reused with another key.
	r := req
	r.Key = effect.Key("s1", "r1", 99, int(keys.Add(1)))
	if _, err := ex.Execute(ctx, r, h.handle); !errors.Is(err, effect.ErrIdempotencyConflict) {
		t.Fatalf("reused id: error = %v, want an idempotency conflict", err)
	}
	h.want(t, 1)
}

func testAmbiguousNeverRetried(t *testing.T, s effect.Store) {
	ctx := context.Background()
	for _, class := range []effect.Class{effect.ClassNonIdempotentWrite, effect.ClassDestructive, effect.ClassUnknown} {
		h := &counter{err: errors.New("connection reset")}
		req := newReq(class, true)
		_, err := (&effect.Executor{Store: s}).Execute(ctx, req, h.handle)
		var amb *effect.AmbiguousError
		if !errors.As(err, &amb) || amb.ID != req.ID || effect.Slug(err) != "effect_ambiguous" {
			t.Fatalf("%s: error = %v, want ambiguous", class, err)
		}
		if want := fmt.Sprintf("effect: ambiguous: effect %q may already have executed: connection reset", req.ID); err.Error() != want {
			t.Fatalf("message = %q, want %q", err, want)
		}
		wantRecord(t, s, req.ID, effect.StateStarted, 0)
		// Not even the retry-safe policy re-runs it.
		retry := &effect.Executor{Store: s, Recovery: effect.RecoveryRetrySafe}
		_, err = retry.Execute(ctx, again(req), h.handle)
		wantErr(t, err, effect.ErrAmbiguous)
		h.want(t, 1)
		wantRecord(t, s, req.ID, effect.StateStarted, 0)
	}
}

func testReconciledCompletion(t *testing.T, s effect.Store) {
	ctx := context.Background()
	req := newReq(effect.ClassNonIdempotentWrite, true)
	seed(t, s, req, effect.StateStarted) // crashed after the effect, before recording it
	var asked effect.Request
	rc := effect.ReconcilerFunc(func(_ context.Context, r effect.Request) (effect.Reconciliation, error) {
		asked = r
		return effect.Reconciliation{Verdict: effect.VerdictCompleted, Output: json.RawMessage(`{"remote":"done"}`)}, nil
	})
	h := &counter{out: `{}`}
	got, err := (&effect.Executor{Store: s, Reconciler: rc}).Execute(ctx, again(req), h.handle)
	if err != nil || !got.Replayed || got.ID != req.ID || string(got.Output) != `{"remote":"done"}` {
		t.Fatalf("reconciled = %+v, %v", got, err)
	}
	if asked.ID != req.ID || asked.Key != req.Key {
		t.Fatalf("the reconciler was asked about %+v", asked)
	}
	h.want(t, 0)
	wantRecord(t, s, req.ID, effect.StateCompleted, 2)
	// Recorded: later attempts replay without asking.
	got, err = (&effect.Executor{Store: s}).Execute(ctx, again(req), h.handle)
	if err != nil || !got.Replayed || string(got.Output) != `{"remote":"done"}` {
		t.Fatalf("after reconciliation = %+v, %v", got, err)
	}
	h.want(t, 0)
}

func testUncertainThenReconciled(t *testing.T, s effect.Store) {
	ctx := context.Background()
	req := newReq(effect.ClassNonIdempotentWrite, true)
	h := &counter{err: errors.New("timeout reading the reply")}
	_, err := (&effect.Executor{Store: s}).Execute(ctx, req, h.handle)
	wantErr(t, err, effect.ErrAmbiguous)
	wantRecord(t, s, req.ID, effect.StateStarted, 0)
	rc := effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
		return effect.Reconciliation{Verdict: effect.VerdictCompleted, Output: json.RawMessage(`"delivered"`)}, nil
	})
	got, err := (&effect.Executor{Store: s, Reconciler: rc}).Execute(ctx, again(req), h.handle)
	if err != nil || !got.Replayed || string(got.Output) != `"delivered"` {
		t.Fatalf("reconciled = %+v, %v", got, err)
	}
	h.want(t, 1)
	wantRecord(t, s, req.ID, effect.StateCompleted, 1)
}

func testNotExecutedProof(t *testing.T, s effect.Store) {
	ctx := context.Background()
	req := newReq(effect.ClassNonIdempotentWrite, true)
	seed(t, s, req, effect.StateStarted)
	rc := effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
		return effect.Reconciliation{Verdict: effect.VerdictNotExecuted}, nil
	})
	h := &counter{out: `{"sent":1}`}
	got, err := (&effect.Executor{Store: s, Reconciler: rc}).Execute(ctx, again(req), h.handle)
	if err != nil || got.Replayed || string(got.Output) != `{"sent":1}` {
		t.Fatalf("after proof = %+v, %v", got, err)
	}
	h.want(t, 1)
	// Started (1), claimed again (2), completed (3).
	wantRecord(t, s, req.ID, effect.StateCompleted, 3)
}

func testUnresolvedReconciliation(t *testing.T, s effect.Store) {
	ctx := context.Background()
	h := &counter{out: `{}`}
	cases := map[string]effect.Reconciler{
		"ambiguous": effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
			return effect.Reconciliation{Verdict: effect.VerdictAmbiguous}, nil
		}),
		"zero answer": effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
			return effect.Reconciliation{}, nil
		}),
		"unreachable": effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
			return effect.Reconciliation{Verdict: effect.VerdictNotExecuted}, errors.New("remote unreachable")
		}),
		"completed without JSON": effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
			return effect.Reconciliation{Verdict: effect.VerdictCompleted, Output: json.RawMessage(`{`)}, nil
		}),
	}
	for name, rc := range cases {
		for _, p := range []effect.RecoveryPolicy{effect.RecoveryRejectAmbiguous, effect.RecoveryRetrySafe} {
			req := newReq(effect.ClassNonIdempotentWrite, true)
			seed(t, s, req, effect.StateStarted)
			_, err := (&effect.Executor{Store: s, Reconciler: rc, Recovery: p}).Execute(ctx, again(req), h.handle)
			want := effect.ErrAmbiguous
			if name == "unreachable" || name == "completed without JSON" {
				want = effect.ErrReconciliation
			}
			if !errors.Is(err, want) {
				t.Fatalf("%s under %s: error = %v, want %v", name, p, err, want)
			}
			wantRecord(t, s, req.ID, effect.StateStarted, 1)
		}
	}
	h.want(t, 0)
}

func testRetrySafePolicy(t *testing.T, s effect.Store) {
	ctx := context.Background()
	rejecting := &effect.Executor{Store: s}
	retrying := &effect.Executor{Store: s, Recovery: effect.RecoveryRetrySafe}
	for _, tc := range []struct {
		class effect.Class
		keyed bool
		rerun bool
	}{
		{effect.ClassIdempotentWrite, true, true},
		{effect.ClassIdempotentWrite, false, false}, // no key: the target cannot tell a repeat
		{effect.ClassPure, false, true},
		{effect.ClassReadOnly, true, true},
		{effect.ClassUndeclared, true, true},
		{effect.ClassNonIdempotentWrite, true, false},
		{effect.ClassDestructive, true, false},
	} {
		h := &counter{out: `"again"`}
		req := newReq(tc.class, tc.keyed)
		seed(t, s, req, effect.StateStarted)
		retry := again(req)
		if !tc.keyed {
			retry = req // only the id finds a keyless record
		}
		_, err := rejecting.Execute(ctx, retry, h.handle)
		wantErr(t, err, effect.ErrAmbiguous)
		got, err := retrying.Execute(ctx, retry, h.handle)
		if !tc.rerun {
			wantErr(t, err, effect.ErrAmbiguous)
			h.want(t, 0)
			wantRecord(t, s, req.ID, effect.StateStarted, 1)
			continue
		}
		if err != nil || got.Replayed || string(got.Output) != `"again"` {
			t.Fatalf("%s (key %v): rerun = %+v, %v", tc.class, tc.keyed, got, err)
		}
		h.want(t, 1)
		wantRecord(t, s, req.ID, effect.StateCompleted, 3)
	}
	// An ambiguous reconciliation falls back to the policy.
	req := newReq(effect.ClassIdempotentWrite, true)
	seed(t, s, req, effect.StateStarted)
	h := &counter{out: `1`}
	rc := effect.ReconcilerFunc(func(context.Context, effect.Request) (effect.Reconciliation, error) {
		return effect.Reconciliation{Verdict: effect.VerdictAmbiguous}, nil
	})
	if _, err := (&effect.Executor{Store: s, Reconciler: rc, Recovery: effect.RecoveryRetrySafe}).Execute(ctx, again(req), h.handle); err != nil {
		t.Fatal(err)
	}
	h.want(t, 1)
}

func testPreparedRuns(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	req := newReq(effect.ClassNonIdempotentWrite, true)
	rec, err := ex.Prepare(ctx, req)
	if err != nil || rec.Status.State != effect.StatePrepared || rec.Revision != 0 || rec.Request.ID != req.ID {
		t.Fatalf("Prepare = %+v, %v", rec, err)
	}
	// Preparing the same effect again returns its record; another effect
	// under the key conflicts.
	if rec, err := ex.Prepare(ctx, again(req)); err != nil || rec.Request.ID != req.ID || rec.Status.State != effect.StatePrepared {
		t.Fatalf("Prepare again = %+v, %v", rec, err)
	}
	other := again(req)
	other.Input = json.RawMessage(`{"to":"bob"}`)
	if _, err := ex.Prepare(ctx, other); !errors.Is(err, effect.ErrIdempotencyConflict) {
		t.Fatalf("Prepare of another effect: %v", err)
	}
	// A prepared intent certainly did not run (the worker may have
	// crashed after recording it): even a non-idempotent effect runs.
	h := &counter{out: `true`}
	got, err := ex.Execute(ctx, again(req), h.handle)
	if err != nil || got.Replayed || got.ID != req.ID {
		t.Fatalf("prepared = %+v, %v", got, err)
	}
	h.want(t, 1)
	wantRecord(t, s, req.ID, effect.StateCompleted, 2)
	// Once run, Prepare reports the settled record.
	if rec, err := ex.Prepare(ctx, again(req)); err != nil || rec.Status.State != effect.StateCompleted {
		t.Fatalf("Prepare after completion = %+v, %v", rec, err)
	}
}

func testFailureFinal(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s, Recovery: effect.RecoveryRetrySafe}
	refused := errors.New("recipient does not exist")
	h := &counter{err: effect.NotExecuted(refused)}
	req := newReq(effect.ClassNonIdempotentWrite, true)
	_, err := ex.Execute(ctx, req, h.handle)
	var fe *effect.FailedError
	if !errors.As(err, &fe) || fe.Replayed || !errors.Is(err, refused) || fe.Failure.Message != refused.Error() || effect.Slug(err) != "effect_failed" {
		t.Fatalf("error = %v, want a fresh failure", err)
	}
	rec := wantRecord(t, s, req.ID, effect.StateFailed, 1)
	if rec.Status.Error == nil || rec.Status.Error.Message != refused.Error() {
		t.Fatalf("stored failure = %+v", rec.Status.Error)
	}
	_, err = ex.Execute(ctx, again(req), h.handle)
	if !errors.As(err, &fe) || !fe.Replayed || fe.ID != req.ID || fe.Failure.Message != refused.Error() {
		t.Fatalf("error = %v, want the stored failure", err)
	}
	h.want(t, 1)

	// Every journal keeps the message as text: a NUL becomes U+FFFD.
	h = &counter{err: effect.NotExecuted(errors.New("bad\x00byte"))}
	req = newReq(effect.ClassNonIdempotentWrite, true)
	_, _ = ex.Execute(ctx, req, h.handle)
	_, err = ex.Execute(ctx, again(req), h.handle)
	if !errors.As(err, &fe) || !fe.Replayed || fe.Failure.Message != "bad\uFFFDbyte" {
		t.Fatalf("error = %v, want the stored failure with U+FFFD", err)
	}
}

func testCancelMidHandler(t *testing.T, s effect.Store) {
	for _, marked := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		req := newReq(effect.ClassIdempotentWrite, true)
		h := func(ctx context.Context) (effect.Outcome, error) {
			cancel()
			<-ctx.Done()
			if marked {
				// Even a claim that nothing happened is not trusted after
				// cancellation.
				return effect.Outcome{}, effect.NotExecuted(ctx.Err())
			}
			return effect.Outcome{}, ctx.Err()
		}
		_, err := (&effect.Executor{Store: s}).Execute(ctx, req, h)
		if !errors.Is(err, effect.ErrAmbiguous) || !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want ambiguous and cancelled", err)
		}
		wantRecord(t, s, req.ID, effect.StateStarted, 0)
	}
	// A handler that completes as its context ends is still recorded.
	ctx, cancel := context.WithCancel(context.Background())
	req := newReq(effect.ClassNonIdempotentWrite, true)
	h := func(context.Context) (effect.Outcome, error) {
		cancel()
		return effect.Outcome{Output: json.RawMessage(`"made it"`)}, nil
	}
	if got, err := (&effect.Executor{Store: s}).Execute(ctx, req, h); err != nil || string(got.Output) != `"made it"` {
		t.Fatalf("completion at cancellation = %+v, %v", got, err)
	}
	wantRecord(t, s, req.ID, effect.StateCompleted, 1)
}

func testCancelledBefore(t *testing.T, s effect.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := &counter{out: `1`}
	req := newReq(effect.ClassNonIdempotentWrite, true)
	_, err := (&effect.Executor{Store: s}).Execute(ctx, req, h.handle)
	wantErr(t, err, context.Canceled)
	if errors.Is(err, effect.ErrAmbiguous) {
		t.Fatalf("a call that never started is not ambiguous: %v", err)
	}
	h.want(t, 0)
	if _, err := s.Load(context.Background(), req.ID); !errors.Is(err, effect.ErrNotFound) {
		t.Fatalf("a cancelled call wrote a record: %v", err)
	}
}

func testToolLevelFailure(t *testing.T, s effect.Store) {
	// The tool ran and answered with an error the model reads: a completed
	// outcome, replayed like any other.
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	answer := `{"status":"failure","error":{"kind":"feedback","message":"no such file"}}`
	h := &counter{out: answer}
	req := newReq(effect.ClassNonIdempotentWrite, true)
	if _, err := ex.Execute(ctx, req, h.handle); err != nil {
		t.Fatal(err)
	}
	got, err := ex.Execute(ctx, again(req), h.handle)
	if err != nil || !got.Replayed || string(got.Output) != answer {
		t.Fatalf("replay = %+v, %v", got, err)
	}
	h.want(t, 1)
}

func testKeyless(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	h := &counter{out: `7`}
	req := newReq(effect.ClassNonIdempotentWrite, false)
	if _, err := ex.Execute(ctx, req, h.handle); err != nil {
		t.Fatal(err)
	}
	// The same id replays; a fresh id is a new effect.
	if got, err := ex.Execute(ctx, req, h.handle); err != nil || !got.Replayed {
		t.Fatalf("same id = %+v, %v", got, err)
	}
	h.want(t, 1)
	if got, err := ex.Execute(ctx, again(req), h.handle); err != nil || got.Replayed {
		t.Fatalf("fresh id = %+v, %v", got, err)
	}
	h.want(t, 2)
	// An empty id is filled in.
	r := req
	r.ID = ""
	got, err := ex.Execute(ctx, r, h.handle)
	if err != nil || got.ID == "" {
		t.Fatalf("empty id = %+v, %v", got, err)
	}
	wantRecord(t, s, got.ID, effect.StateCompleted, 1)
}

func testInvalid(t *testing.T, s effect.Store) {
	ctx := context.Background()
	h := &counter{out: `1`}
	for name, change := range map[string]func(*effect.Request){
		"no tool":        func(r *effect.Request) { r.Tool = "" },
		"bad class":      func(r *effect.Request) { r.Class = "sideways" },
		"input not JSON": func(r *effect.Request) { r.Input = json.RawMessage(`{"a":`) },
		"two values":     func(r *effect.Request) { r.Input = json.RawMessage(`1 2`) },
		"NUL in key":     func(r *effect.Request) { r.Key += "\x00" },
	} {
		req := newReq(effect.ClassPure, true)
		change(&req)
		_, err := (&effect.Executor{Store: s}).Execute(ctx, req, h.handle)
		if !errors.Is(err, effect.ErrInvalid) || effect.Slug(err) != "effect_invalid" {
			t.Fatalf("%s: error = %v, want ErrInvalid", name, err)
		}
		if _, err := s.FindByKey(ctx, req.Key); !errors.Is(err, effect.ErrNotFound) {
			t.Fatalf("%s: an invalid request wrote a record: %v", name, err)
		}
	}
	h.want(t, 0)
}

func testConcurrent(t *testing.T, s effect.Store) {
	ctx := context.Background()
	ex := &effect.Executor{Store: s}
	req := newReq(effect.ClassNonIdempotentWrite, true)
	h := &counter{out: `"once"`}
	const n = 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]effect.Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = ex.Execute(ctx, again(req), h.handle)
		})
	}
	close(start)
	wg.Wait()
	h.want(t, 1)
	fresh := 0
	for i := range n {
		switch {
		case errs[i] == nil && string(results[i].Output) == `"once"`:
			if !results[i].Replayed {
				fresh++
			}
		case errors.Is(errs[i], effect.ErrAmbiguous), errors.Is(errs[i], effect.ErrConflict):
		default:
			t.Fatalf("attempt %d: %+v, %v", i, results[i], errs[i])
		}
	}
	if fresh != 1 {
		t.Fatalf("%d attempts report a fresh run, want 1", fresh)
	}
	rec, err := s.FindByKey(ctx, req.Key)
	if err != nil || rec.Status.State != effect.StateCompleted || rec.Revision != 1 {
		t.Fatalf("record = %+v, %v; want completed at revision 1", rec, err)
	}
}

func testBatch(t *testing.T, s effect.Store) {
	ctx := context.Background()
	bs := s.(effect.BatchStore)
	a := newReq(effect.ClassIdempotentWrite, true)
	b := newReq(effect.ClassIdempotentWrite, true)
	sameKey := newReq(effect.ClassIdempotentWrite, false)
	sameKey.Key = a.Key
	prep := func(r effect.Request) effect.Record {
		return effect.Record{Request: r, Status: effect.Status{State: effect.StatePrepared}}
	}
	start := func(r effect.Request, rev uint64) effect.Record {
		return effect.Record{Revision: rev, Request: r, Status: effect.Status{State: effect.StateStarted}}
	}
	ops := []effect.Op{
		{Record: prep(a), Expected: effect.CreateOnly},
		{Record: prep(sameKey), Expected: effect.CreateOnly}, // the key is a's now
		{Record: start(a, 1), Expected: 0},                   // sees the create above
		{Record: start(a, 1), Expected: 0},                   // stale after the line above
		{Record: start(a, 5), Expected: 1},                   // breaks the revision rule
		{Record: start(b, 1), Expected: 0},                   // b does not exist
		{Record: prep(b), Expected: effect.CreateOnly},
	}
	errs, err := bs.CompareAndSwapBatch(ctx, ops)
	if err != nil {
		t.Fatal(err)
	}
	want := []error{nil, effect.ErrConflict, nil, effect.ErrConflict, effect.ErrInvalid, effect.ErrNotFound, nil}
	if len(errs) != len(want) {
		t.Fatalf("%d results for %d operations", len(errs), len(ops))
	}
	for i := range want {
		if (want[i] == nil) != (errs[i] == nil) || (want[i] != nil && !errors.Is(errs[i], want[i])) {
			t.Fatalf("op %d: error = %v, want %v", i, errs[i], want[i])
		}
	}
	wantRecord(t, s, a.ID, effect.StateStarted, 1)
	wantRecord(t, s, b.ID, effect.StatePrepared, 0)
	if _, err := s.Load(ctx, sameKey.ID); !errors.Is(err, effect.ErrNotFound) {
		t.Fatalf("a conflicting create in a batch wrote a record: %v", err)
	}
	if errs, err := bs.CompareAndSwapBatch(ctx, nil); err != nil || len(errs) != 0 {
		t.Fatalf("empty batch = %v, %v", errs, err)
	}
}
