package artifactref

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// idPrefix starts every artifact id; the rest is 64 lowercase hex digits.
const idPrefix = "sha256:"

// Ref is the reference to a stored artifact that conversations and
// checkpoints carry instead of its bytes. Every field is fixed when the
// artifact is first stored; [Store.Get] returns the bytes only for a Ref
// equal to the stored one.
//
// A Ref decoded from JSON has been checked with [Ref.Validate].
type Ref struct {
	Scope Scope `json:"scope"`
	// ID is the content address: "sha256:" + the lowercase hex SHA-256 of
	// MediaType, one zero byte and the bytes.
	ID        string `json:"artifact_id"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size_bytes"`
	// SHA256 is the lowercase hex SHA-256 of the bytes alone, the digest
	// providers and HTTP headers use.
	SHA256 string `json:"sha256"`
	// Name is an optional display name ("" for none), for example the
	// file name providers show for a document.
	Name string `json:"name,omitempty"`
	// CreatedAtUnixMS is when the store first stored the artifact, in
	// milliseconds since the Unix epoch.
	CreatedAtUnixMS int64 `json:"created_at_unix_ms"`
	// ExpiresAtUnixMS is when the artifact expires, in milliseconds since
	// the Unix epoch, or nil for never. From that instant on Get reports
	// ErrExpired.
	ExpiresAtUnixMS *int64 `json:"expires_at_unix_ms,omitempty"`
}

// Validate returns an error matching [ErrInvalidInput] unless every field
// of r is well formed: a scope, an id and a digest of the right shape, a
// normalised media type, a positive size, a valid name and non-negative
// times. It does not say that the artifact exists.
func (r Ref) Validate() error {
	if err := r.Scope.Validate(); err != nil {
		return err
	}
	if err := ValidateID(r.ID); err != nil {
		return err
	}
	if mt, err := normalizeMediaType(r.MediaType); err != nil {
		return err
	} else if mt != r.MediaType {
		return fmt.Errorf("%w: the media type of a reference must be lower case", ErrInvalidInput)
	}
	if r.Size <= 0 {
		return fmt.Errorf("%w: the size of a reference must be positive", ErrInvalidInput)
	}
	if !isHexDigest(r.SHA256) {
		return fmt.Errorf("%w: sha256 must be 64 lowercase hex digits", ErrInvalidInput)
	}
	if r.Name != "" {
		if err := validateName(r.Name); err != nil {
			return err
		}
	}
	if r.CreatedAtUnixMS < 0 {
		return fmt.Errorf("%w: the creation time must not be negative", ErrInvalidInput)
	}
	if r.ExpiresAtUnixMS != nil && *r.ExpiresAtUnixMS < 0 {
		return fmt.Errorf("%w: the expiry must not be negative", ErrInvalidInput)
	}
	return nil
}

// Equal reports whether r and o are the same reference, field by field
// (expiries by value).
func (r Ref) Equal(o Ref) bool {
	return r.Scope == o.Scope && r.ID == o.ID && r.MediaType == o.MediaType && r.Size == o.Size &&
		r.SHA256 == o.SHA256 && r.Name == o.Name && r.CreatedAtUnixMS == o.CreatedAtUnixMS &&
		sameExpiry(r.ExpiresAtUnixMS, o.ExpiresAtUnixMS)
}

func sameExpiry(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// Expired reports whether r has expired at now (unix ms): expiry ≤ now.
func Expired(r Ref, nowUnixMS int64) bool {
	return r.ExpiresAtUnixMS != nil && *r.ExpiresAtUnixMS <= nowUnixMS
}

// UnmarshalJSON decodes a reference and checks it with [Ref.Validate], so
// that a forged or truncated reference is refused where it enters.
func (r *Ref) UnmarshalJSON(b []byte) error {
	type jsonRef Ref // without this method
	var p jsonRef
	if err := json.Unmarshal(b, &p); err != nil {
		if errors.Is(err, ErrInvalidInput) { // the scope's own check
			return err
		}
		return fmt.Errorf("%w: artifact reference: %w", ErrInvalidInput, err)
	}
	if err := Ref(p).Validate(); err != nil {
		return err
	}
	*r = Ref(p)
	return nil
}

// ValidateID returns an error matching [ErrInvalidInput] unless id has the
// shape of an artifact id: "sha256:" and 64 lowercase hex digits.
func ValidateID(id string) error {
	if !strings.HasPrefix(id, idPrefix) || !isHexDigest(id[len(idPrefix):]) {
		return fmt.Errorf("%w: an artifact id must be sha256: and 64 lowercase hex digits", ErrInvalidInput)
	}
	return nil
}

func isHexDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ContentID returns the content address of data stored as mediaType.
func ContentID(mediaType string, data []byte) string {
	h := sha256.New()
	h.Write([]byte(mediaType))
	h.Write([]byte{0})
	h.Write(data)
	return idPrefix + hex.EncodeToString(h.Sum(nil))
}

// validateText checks a key or a name: valid UTF-8 (PostgreSQL's TEXT
// refuses anything else), no control characters (they would break logs
// and headers; NUL cannot be stored at all) and not only blanks.
func validateText(what, s string, max int) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%w: the %s must not be blank", ErrInvalidInput, what)
	}
	if len(s) > max {
		return fmt.Errorf("%w: the %s must not be longer than %d bytes", ErrInvalidInput, what, max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: the %s must be valid UTF-8", ErrInvalidInput, what)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: the %s must not hold control characters", ErrInvalidInput, what)
	}
	return nil
}

func validateName(name string) error { return validateText("name", name, MaxNameBytes) }
