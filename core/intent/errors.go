package intent

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/slugs"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Sentinel errors. Failures wrap one of them, so callers test with
// errors.Is; Slug names each one for hosts.
var (
	// ErrInvalid: a malformed intent, batch, journal entry or argument (a
	// caller's bug or a corrupt record, never a race).
	ErrInvalid = errors.New("intent: invalid")
	// ErrNotFound: no journal entry has that key. It matches
	// store.ErrNotFound too.
	ErrNotFound error = storeerr.Specialize("intent: not found", storeerr.ErrNotFound)
	// ErrConflict: a journal append found its stream position taken by
	// another entry. It matches store.ErrConflict too.
	ErrConflict error = storeerr.Specialize("intent: conflict", storeerr.ErrConflict)
	// ErrMissingToolCallID: an identity was derived without a tool call id.
	ErrMissingToolCallID = errors.New("intent: missing tool call id")
	// ErrIntentIndexOverflow: an intent index does not fit in 32 bits.
	ErrIntentIndexOverflow = errors.New("intent: intent index overflow")

	// Refusals of an Ingress's Submit.

	// ErrMalformedKey: the key was not made by Ingress.Key, or its identity
	// could not be derived (no call id, index overflow).
	ErrMalformedKey = errors.New("intent: malformed key")
	// ErrForeignSession: the key belongs to another session's ingress.
	ErrForeignSession = errors.New("intent: foreign session")
	// ErrForeignExecutionScope: the key belongs to another scope's ingress.
	ErrForeignExecutionScope = errors.New("intent: foreign execution scope")
	// ErrIntentSessionMismatch: the intent names another session than the
	// ingress's.
	ErrIntentSessionMismatch = errors.New("intent: intent session mismatch")
	// ErrIdentityBoundToDifferentIntent: the identity was submitted before
	// with another intent.
	ErrIdentityBoundToDifferentIntent = errors.New("intent: identity bound to a different intent")
	// ErrDuplicateIdentity: the identity was realised by a tool attempt, not
	// submitted through an ingress.
	ErrDuplicateIdentity = errors.New("intent: duplicate identity")
	// ErrRecordedOutcomeOutsideProtocol: the outcome recorded under the
	// identity is not one this protocol version writes.
	ErrRecordedOutcomeOutsideProtocol = errors.New("intent: recorded outcome outside the intent protocol")
	// ErrIntentRefused: the submitted intent was refused by admission (its
	// budget); the error is a *RefusedError carrying the recorded outcome.
	ErrIntentRefused = errors.New("intent: refused")
)

// slugTable pairs each sentinel with its stable slug, most specific first
// (Slug returns the first match). It is the one list ErrorSlugs reads.
var slugTable = slugs.Table{
	{Err: ErrMalformedKey, Slug: "intent_malformed_key"},
	{Err: ErrForeignSession, Slug: "intent_foreign_session"},
	{Err: ErrForeignExecutionScope, Slug: "intent_foreign_execution_scope"},
	{Err: ErrIntentSessionMismatch, Slug: "intent_session_mismatch"},
	{Err: ErrIdentityBoundToDifferentIntent, Slug: "intent_identity_bound_to_different_intent"},
	{Err: ErrDuplicateIdentity, Slug: "intent_duplicate_identity"},
	{Err: ErrRecordedOutcomeOutsideProtocol, Slug: "intent_recorded_outcome_outside_protocol"},
	{Err: ErrIntentRefused, Slug: "intent_refused"},
	{Err: ErrMissingToolCallID, Slug: "intent_missing_tool_call_id"},
	{Err: ErrIntentIndexOverflow, Slug: "intent_index_overflow"},
	{Err: ErrConflict, Slug: "intent_conflict"},
	{Err: ErrNotFound, Slug: "intent_not_found"},
	{Err: ErrInvalid, Slug: "intent_invalid"},
}

// Slug returns the stable slug of the sentinel err matches
// ("intent_foreign_session", ...), or "" when it matches none (a store
// being unavailable, a cancelled context: the caller classifies those).
func Slug(err error) string { return slugTable.Of(err) }

// ErrorSlugs lists every slug Slug can return, for parity checks with
// other languages. The caller owns the returned slice.
func ErrorSlugs() []string { return slugTable.List() }

func isNotFound(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, storeerr.ErrNotFound)
}
func isConflict(err error) bool {
	return errors.Is(err, ErrConflict) || errors.Is(err, storeerr.ErrConflict)
}

func asCommandError(err error, dst **CommandError) bool { return errors.As(err, dst) }
