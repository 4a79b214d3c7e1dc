package artifactref

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Sentinel errors of artifacts (core/artifact re-exports them). Failures wrap one of them with context,
// so callers test with errors.Is; messages never include stored bytes or
// idempotency keys. Three of them also match the store sentinel they
// refine: ErrNotFound matches [store.ErrNotFound], and both conflicts match
// [store.ErrConflict].
var (
	// ErrInvalidInput: a scope, write, reference, cursor or limit breaks a
	// rule of this package (the message names the rule).
	ErrInvalidInput = errors.New("artifact: invalid input")
	// ErrNotFound: the scope holds no artifact with that id.
	ErrNotFound error = storeerr.Specialize("artifact: not found", storeerr.ErrNotFound)
	// ErrIdempotencyConflict: the idempotency key already names another
	// artifact, or the same artifact with another name or expiry.
	ErrIdempotencyConflict error = storeerr.Specialize("artifact: idempotency conflict", storeerr.ErrConflict)
	// ErrMetadataConflict: the scope already holds the content under a new
	// key's content address, with another name or expiry.
	ErrMetadataConflict error = storeerr.Specialize("artifact: metadata conflict", storeerr.ErrConflict)
	// ErrIntegrity: the stored bytes no longer match their reference (size,
	// digest or id), or the reference presented differs from the stored one.
	ErrIntegrity = errors.New("artifact: integrity check failed")
	// ErrExpired: the artifact's expiry has passed; it stays stored until
	// purged (see Store.PurgeExpired) but is never returned.
	ErrExpired = errors.New("artifact: expired")
)
