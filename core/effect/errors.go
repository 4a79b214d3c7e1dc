package effect

import (
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
	"github.com/starweaver-go/starweaver/core/internal/slugs"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Sentinel errors. Failures wrap one of them, so callers test with
// errors.Is; Slug names each one for hosts.
var (
	// ErrInvalid: a malformed request or record (empty id or tool name, an
	// unknown class or state, input that is not JSON), or a
	// compare-and-swap that breaks the revision rules (see Store). It is a
	// caller's bug, never a race.
	ErrInvalid = effectclass.ErrInvalid
	// ErrNotFound: no record has that id or key. It matches
	// store.ErrNotFound too.
	ErrNotFound error = storeerr.Specialize("effect: not found", storeerr.ErrNotFound)
	// ErrConflict: a compare-and-swap lost: the record changed since it
	// was read, or a create found the id or the key already taken. It
	// matches store.ErrConflict too.
	ErrConflict error = storeerr.Specialize("effect: conflict", storeerr.ErrConflict)
	// ErrIdempotencyConflict: an idempotency key (or an effect id) was
	// reused for a different effect: another tool, class or input.
	ErrIdempotencyConflict = errors.New("effect: idempotency conflict")
	// ErrAmbiguous: the effect may already have executed, and nothing
	// proves either way; it is not run (again). The error is an
	// *AmbiguousError.
	ErrAmbiguous = errors.New("effect: ambiguous")
	// ErrFailed: the effect failed without executing, and that failure is
	// final for its record. The error is a *FailedError.
	ErrFailed = errors.New("effect: failed")
	// ErrReconciliation: the Reconciler itself failed; the record stays
	// started and the handler is not run.
	ErrReconciliation = errors.New("effect: reconciliation failed")
)

// slugTable pairs each sentinel with its stable slug, most specific first
// (Slug returns the first match). It is the one list ErrorSlugs reads.
var slugTable = slugs.Table{
	{Err: ErrAmbiguous, Slug: "effect_ambiguous"},
	{Err: ErrIdempotencyConflict, Slug: "effect_idempotency_conflict"},
	{Err: ErrFailed, Slug: "effect_failed"},
	{Err: ErrReconciliation, Slug: "effect_reconciliation"},
	{Err: ErrConflict, Slug: "effect_conflict"},
	{Err: ErrNotFound, Slug: "effect_not_found"},
	{Err: ErrInvalid, Slug: "effect_invalid"},
}

// Slug returns the stable slug of the effect sentinel err matches
// ("effect_ambiguous", "effect_conflict", ...), or "" when it matches
// none (a store being unavailable, a cancelled context: the caller
// classifies those). Slugs are for programs: they never change.
func Slug(err error) string { return slugTable.Of(err) }

// ErrorSlugs lists every slug Slug can return, for parity checks with
// other languages. The caller owns the returned slice.
func ErrorSlugs() []string { return slugTable.List() }

// AmbiguousError reports an effect that may already have executed: its
// record is left started. Only a Reconciler (or, for retry-safe effects,
// the RecoveryRetrySafe policy) can settle it.
type AmbiguousError struct {
	// ID is the effect's id.
	ID string
	// Cause is why the outcome is unknown: the handler's error, or nil when
	// a started record was found by a later Execute.
	Cause error
}

func (e *AmbiguousError) Error() string {
	msg := fmt.Sprintf("effect: ambiguous: effect %q may already have executed", e.ID)
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Is makes errors.Is(err, ErrAmbiguous) hold.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// Unwrap returns the cause, so that errors.Is(err, context.Canceled) holds
// for a handler cancelled mid-run.
func (e *AmbiguousError) Unwrap() error { return e.Cause }

// FailedError reports an effect whose handler failed without executing it
// (see NotExecuted). The failure is stored, and later Executes of the same
// effect return it again without running the handler.
type FailedError struct {
	// ID is the effect's id.
	ID string
	// Failure is what the record stores.
	Failure Failure
	// Replayed is set when the failure was read from the journal rather
	// than produced by this call's handler.
	Replayed bool
	// Err is the handler's error (nil when replayed).
	Err error
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("effect: failed: effect %q: %s", e.ID, e.Failure.Message)
}

// Is makes errors.Is(err, ErrFailed) hold.
func (e *FailedError) Is(target error) bool { return target == ErrFailed }

// Unwrap returns the handler's error, if any.
func (e *FailedError) Unwrap() error { return e.Err }
