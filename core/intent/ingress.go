package intent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/effect"
)

// Ingress lets a host outside a tool call submit intents in one
// execution scope of one session, each under an identity it names with
// Key. It shares the Realiser's journal, and so the identity gate of
// every ingress and every tool attempt on that journal: an identity is
// bound to the first intent submitted under it.
type Ingress struct {
	r       *Realiser
	session string
	scope   Scope
}

// ToolIntents returns the ingress of scope in session.
func (r *Realiser) ToolIntents(session string, scope Scope) (*Ingress, error) {
	if session == "" {
		return nil, fmt.Errorf("%w: an ingress without a session", ErrInvalid)
	}
	if err := scope.validate(); err != nil {
		return nil, err
	}
	return &Ingress{r: r, session: session, scope: scope}, nil
}

// IngressKey names one intent submitted through an Ingress: the index-th
// intent of host call id callID. The zero value is malformed.
type IngressKey struct {
	session string
	scope   Scope
	id      Identity
	err     error
}

// Key returns the key of intent index of callID in g's scope. It never
// fails: a key whose identity cannot be derived is refused by Submit as
// ErrMalformedKey.
func (g *Ingress) Key(callID string, index int) IngressKey {
	id, err := DeriveIdentity(g.session, g.scope.ID, callID, index)
	return IngressKey{session: g.session, scope: g.scope, id: id, err: err}
}

// Identity returns the key's identity, or why it has none.
func (k IngressKey) Identity() (Identity, error) {
	if k.err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrMalformedKey, k.err)
	}
	if k.id.ReplayKey == "" {
		return Identity{}, fmt.Errorf("%w: the key was not made by Ingress.Key", ErrMalformedKey)
	}
	return k.id, nil
}

// Admitted is a submitted intent's admission and outcome.
type Admitted struct {
	Identity Identity
	Kind     Kind
	// Outcome is the intent's recorded outcome (Executed, or Refused by
	// its command).
	Outcome Outcome
	// Replayed is set when the identity had been submitted before (with
	// the same intent): the outcome is the first submission's, and the
	// intent was realised once.
	Replayed bool
}

// RefusedError is a submitted intent refused by admission (over the
// canonical-byte budget); it matches ErrIntentRefused.
type RefusedError struct {
	Outcome Refused
}

func (e *RefusedError) Error() string {
	return "intent: refused: " + e.Outcome.ModelAddendum()
}

// Is makes errors.Is(err, ErrIntentRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrIntentRefused }

// submission is the journal body that binds an identity to an intent.
type submission struct {
	Identity    Identity        `json:"identity"`
	Kind        Kind            `json:"kind"`
	PayloadHash string          `json:"payload_hash"`
	Intent      json.RawMessage `json:"intent"`
}

func submissionKey(replayKey string) string { return path("submission", replayKey) }

// Submit admits in under key and realises it, journal first: the
// submission is recorded (binding the identity to the intent), then the
// intent is executed under its replay key and its outcome recorded.
// Submitting the same intent under the same key again returns the
// recorded outcome with Replayed set, and realises nothing more; after a
// crash, it finishes a realisation the first submission left.
//
// Refusals are errors matching ErrMalformedKey, ErrForeignSession,
// ErrForeignExecutionScope, ErrIntentSessionMismatch,
// ErrIdentityBoundToDifferentIntent (the identity carries another
// intent), ErrDuplicateIdentity (a tool attempt realised the identity),
// ErrRecordedOutcomeOutsideProtocol, or ErrIntentRefused (a
// *RefusedError). Nothing is recorded for a refusal.
func (g *Ingress) Submit(ctx context.Context, key IngressKey, in Intent) (Admitted, error) {
	id, err := key.Identity()
	switch {
	case err != nil:
		return Admitted{}, err
	case key.session != g.session:
		return Admitted{}, fmt.Errorf("%w: the key is of session %q, the ingress of %q", ErrForeignSession, key.session, g.session)
	case key.scope != g.scope:
		return Admitted{}, fmt.Errorf("%w: the key is of %s scope %q, the ingress of %s scope %q", ErrForeignExecutionScope, key.scope.Kind, key.scope.ID, g.scope.Kind, g.scope.ID)
	case in == nil:
		return Admitted{}, fmt.Errorf("%w: a nil intent", ErrInvalid)
	case in.Session() != g.session:
		return Admitted{}, fmt.Errorf("%w: the intent names session %q, the ingress is of %q", ErrIntentSessionMismatch, in.Session(), g.session)
	}
	if r, refused := admissionRefusal(g.session, id.ToolCallID, V1(in)); refused {
		return Admitted{}, &RefusedError{Outcome: Refused{Identity: &id, IntentIndex: id.IntentIndex, Kind: in.Kind(), Refusal: r}}
	}
	raw, err := MarshalIntent(in)
	if err == nil {
		raw, err = effect.Canonical(raw)
	}
	if err != nil {
		return Admitted{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	sum := sha256.Sum256(raw)
	sub := submission{Identity: id, Kind: in.Kind(), PayloadHash: hex.EncodeToString(sum[:]), Intent: raw}

	j := g.r.Journal
	replayed := false
	e, err := j.Get(ctx, submissionKey(id.ReplayKey))
	switch {
	case err == nil:
		replayed = true
	case !isNotFound(err):
		return Admitted{}, err
	default:
		if _, err := j.Get(ctx, outcomeKey(id.ReplayKey)); err == nil {
			return Admitted{}, fmt.Errorf("%w: %s was realised by a tool attempt", ErrDuplicateIdentity, id.ReplayKey)
		} else if !isNotFound(err) {
			return Admitted{}, err
		}
		body, err := json.Marshal(sub)
		if err != nil {
			return Admitted{}, err
		}
		if e, replayed, err = j.Append(ctx, Entry{Key: submissionKey(id.ReplayKey), Body: body}); err != nil {
			return Admitted{}, fmt.Errorf("intent: record the submission: %w", err)
		}
	}
	var first submission
	if err := json.Unmarshal(e.Body, &first); err != nil {
		return Admitted{}, fmt.Errorf("%w: submission %q: %w", ErrInvalid, e.Key, err)
	}
	if first.PayloadHash != sub.PayloadHash {
		return Admitted{}, fmt.Errorf("%w: %s carries a %s intent with another payload", ErrIdentityBoundToDifferentIntent, id.ReplayKey, first.Kind)
	}
	o, err := g.r.realiseOne(ctx, g.session, g.scope, int(id.IntentIndex), Declared{Identity: id, Intent: in})
	if err != nil {
		return Admitted{}, err
	}
	return Admitted{Identity: id, Kind: in.Kind(), Outcome: o, Replayed: replayed}, nil
}

// SettleParentEnd settles the parent-end actions of the processes started
// in g's scope (through this or any ingress, or by tool attempts): see
// Realiser.SettleParentEnd. It is safe to redrive.
func (g *Ingress) SettleParentEnd(ctx context.Context) ([]ParentEndOutcome, error) {
	return g.r.SettleParentEnd(ctx, g.session, g.scope)
}
