package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/starweaver-go/starweaver/core/internal/artifactref"
)

// This file holds the decisions every Store implementation makes, so that
// the memory, SQLite and PostgreSQL stores cannot drift apart: a backend
// only finds rows, and asks these functions what to answer.

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
	if int64(len(data)) != stored.Size || hex.EncodeToString(sum[:]) != stored.SHA256 || artifactref.ContentID(stored.MediaType, data) != stored.ID {
		return fmt.Errorf("%w: the stored bytes of %s no longer match their reference", ErrIntegrity, stored.ID)
	}
	if artifactref.Expired(stored, nowUnixMS) {
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
