package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// This file holds the decisions every Store implementation makes, so that
// the memory, SQLite and PostgreSQL stores cannot drift apart: a backend
// only finds rows, and asks these functions what to answer.

// Validate returns an error matching [ErrInvalidInput] when a store whose
// limit is maxBytes must refuse w: a Write not built by [NewWrite], or one
// larger than maxBytes. Put calls it first.
func (w Write) Validate(maxBytes int64) error {
	if w.id == "" {
		return fmt.Errorf("%w: the write was not built by NewWrite", ErrInvalidInput)
	}
	if int64(len(w.data)) > maxBytes {
		return fmt.Errorf("%w: the artifact has %d bytes, more than the store's limit of %d", ErrInvalidInput, len(w.data), maxBytes)
	}
	return nil
}

// Ref returns the reference w gets when the store first stores it, at
// createdAtUnixMS.
func (w Write) Ref(createdAtUnixMS int64) Ref {
	return Ref{
		Scope:           w.scope,
		ID:              w.id,
		MediaType:       w.mediaType,
		Size:            int64(len(w.data)),
		SHA256:          w.sha256,
		Name:            w.name,
		CreatedAtUnixMS: createdAtUnixMS,
		ExpiresAtUnixMS: copyExpiry(w.expiresAt),
	}
}

// Replay decides a Put whose idempotency key the scope already maps to
// the artifact stored: it returns stored (a replay) when w writes that
// artifact with the same name and expiry, and an error matching
// [ErrIdempotencyConflict] otherwise.
func (w Write) Replay(stored Ref) (Ref, error) {
	if stored.ID != w.id {
		return Ref{}, fmt.Errorf("%w: the idempotency key already names %s, not %s", ErrIdempotencyConflict, stored.ID, w.id)
	}
	if stored.Name != w.name || !sameExpiry(stored.ExpiresAtUnixMS, w.expiresAt) {
		return Ref{}, fmt.Errorf("%w: the idempotency key names %s with another name or expiry", ErrIdempotencyConflict, w.id)
	}
	return stored, nil
}

// Alias decides a Put with a key the scope does not know yet, whose
// content address already holds existing: it returns existing (the key
// becomes an alias of it) when w would store the same metadata, and an
// error matching [ErrMetadataConflict] when the name, expiry or any other
// field differs, since a stored artifact's metadata never changes.
func (w Write) Alias(existing Ref) (Ref, error) {
	if !w.Ref(existing.CreatedAtUnixMS).Equal(existing) {
		return Ref{}, fmt.Errorf("%w: %s is already stored with another name or expiry", ErrMetadataConflict, w.id)
	}
	return existing, nil
}

// Verify decides a Get of presented, for which the store found stored and
// its bytes data: an error matching [ErrIntegrity] when presented differs
// from stored or data no longer matches stored (size, SHA-256, id), an
// error matching [ErrExpired] when stored has expired at nowUnixMS, nil
// when Get may return data.
func Verify(presented, stored Ref, data []byte, nowUnixMS int64) error {
	if !presented.Equal(stored) {
		return fmt.Errorf("%w: the reference to %s differs from the stored one", ErrIntegrity, presented.ID)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != stored.Size || hex.EncodeToString(sum[:]) != stored.SHA256 || contentID(stored.MediaType, data) != stored.ID {
		return fmt.Errorf("%w: the stored bytes of %s no longer match their reference", ErrIntegrity, stored.ID)
	}
	if stored.expired(nowUnixMS) {
		return fmt.Errorf("%w: %s expired at %d", ErrExpired, stored.ID, *stored.ExpiresAtUnixMS)
	}
	return nil
}

// CheckList returns the error List must fail with for these arguments, or
// nil.
func CheckList(scope Scope, after string, limit int) error {
	if err := scope.Validate(); err != nil {
		return err
	}
	if after != "" {
		if err := ValidateID(after); err != nil {
			return fmt.Errorf("%w (the cursor)", err)
		}
	}
	return checkLimit(limit)
}

// CheckDelete returns the error Delete must fail with for these arguments,
// or nil.
func CheckDelete(scope Scope, id string) error {
	if err := scope.Validate(); err != nil {
		return err
	}
	return ValidateID(id)
}

// CheckPurge returns the error PurgeExpired must fail with for these
// arguments, or nil.
func CheckPurge(scope Scope, nowUnixMS int64, limit int) error {
	if err := scope.Validate(); err != nil {
		return err
	}
	if nowUnixMS < 0 {
		return fmt.Errorf("%w: the purge time must not be negative", ErrInvalidInput)
	}
	return checkLimit(limit)
}

func checkLimit(limit int) error {
	if limit < 1 || limit > MaxPageSize {
		return fmt.Errorf("%w: the limit must be between 1 and %d", ErrInvalidInput, MaxPageSize)
	}
	return nil
}

// NewPage builds the page List returns from rows: up to limit+1
// references in id order, the one past limit only telling that another
// page follows. (Backends fetch limit+1 rows so that the last page never
// ends with an empty one.)
func NewPage(rows []Ref, limit int) Page {
	p := Page{Items: rows}
	if len(rows) > limit {
		p.Items = rows[:limit]
		p.Next = rows[limit-1].ID
	}
	if p.Items == nil {
		p.Items = []Ref{}
	}
	return p
}
