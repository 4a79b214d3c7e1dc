package artifact

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/artifactref"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Sentinel errors of the package. Failures wrap one of them with context,
// so callers test with errors.Is; messages never include stored bytes or
// idempotency keys. Three of them also match the store sentinel they
// refine: ErrNotFound matches store.ErrNotFound, and both conflicts match
// store.ErrConflict.
var (
	// ErrInvalidInput: a scope, write, reference, cursor or limit breaks a
	// rule of this package (the message names the rule).
	ErrInvalidInput = artifactref.ErrInvalidInput
	// ErrNotFound: the scope holds no artifact with that id.
	ErrNotFound = artifactref.ErrNotFound
	// ErrIdempotencyConflict: the idempotency key already names another
	// artifact, or the same artifact with another name or expiry.
	ErrIdempotencyConflict = artifactref.ErrIdempotencyConflict
	// ErrMetadataConflict: the scope already holds the content under a new
	// key's content address, with another name or expiry.
	ErrMetadataConflict = artifactref.ErrMetadataConflict
	// ErrIntegrity: the stored bytes no longer match their reference (size,
	// digest or id), or the reference presented differs from the stored one.
	ErrIntegrity = artifactref.ErrIntegrity
	// ErrExpired: the artifact's expiry has passed; it stays stored until
	// purged (see Store.PurgeExpired) but is never returned.
	ErrExpired = artifactref.ErrExpired
)

// ErrorKind is the stable slug of an artifact failure. The C ABI and the
// Python package see the same slugs; they never change once published.
type ErrorKind string

// The error kinds, in the order ErrorKinds lists them.
const (
	KindInvalid     ErrorKind = "artifact_invalid"
	KindNotFound    ErrorKind = "artifact_not_found"
	KindConflict    ErrorKind = "artifact_conflict" // both idempotency and metadata conflicts
	KindIntegrity   ErrorKind = "artifact_integrity"
	KindExpired     ErrorKind = "artifact_expired"
	KindUnavailable ErrorKind = "store_unavailable"
)

// errorKinds is the one list of kinds; ErrorKinds reads it.
var errorKinds = [...]ErrorKind{KindInvalid, KindNotFound, KindConflict, KindIntegrity, KindExpired, KindUnavailable}

// ErrorKinds lists every kind, for parity checks with other languages. The
// caller owns the returned slice.
func ErrorKinds() []ErrorKind {
	return append([]ErrorKind(nil), errorKinds[:]...)
}

// KindOf returns the kind of err: the kind of the first sentinel of this
// package (or of core/store) it matches, checked from the most specific.
// It returns "" for nil and for errors that are neither (a bug, an error
// of a Reader written elsewhere): the caller decides what those are.
func KindOf(err error) ErrorKind {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrInvalidInput):
		return KindInvalid
	case errors.Is(err, ErrIntegrity):
		return KindIntegrity
	case errors.Is(err, ErrExpired):
		return KindExpired
	case errors.Is(err, storeerr.ErrNotFound):
		return KindNotFound
	case errors.Is(err, storeerr.ErrConflict):
		return KindConflict
	case errors.Is(err, storeerr.ErrUnavailable), errors.Is(err, storeerr.ErrClosed):
		return KindUnavailable
	default:
		return ""
	}
}
