package artifactref

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Limits of a write.
const (
	// DefaultMaxBytes is the largest artifact a store accepts unless
	// configured otherwise (Config.MaxBytes): 16 MiB, above what providers
	// accept inline for one image or document.
	DefaultMaxBytes = 16 << 20
	// MaxKeyBytes is the longest idempotency key, in bytes.
	MaxKeyBytes = 512
	// MaxNameBytes is the longest name, in bytes.
	MaxNameBytes = 256
)

// Write is a validated request to store one artifact. Build it with
// [NewWrite] and the With methods, which return a new Write and leave the
// receiver unchanged; a Write is immutable, so one can be retried or shared
// between goroutines. The zero Write is not valid: stores reject it.
type Write struct {
	scope     Scope
	key       string
	mediaType string
	data      []byte
	id        string
	sha256    string
	name      string
	expiresAt *int64 // never modified once set: copies share it
}

// NewWrite validates a write of data, as mediaType, into scope under
// idempotencyKey. It returns an error matching [ErrInvalidInput] when:
//   - scope is the zero Scope;
//   - the key is blank, longer than [MaxKeyBytes], not valid UTF-8 or holds
//     a control character;
//   - mediaType is not a bare type/subtype of RFC 7230 tokens (parameters
//     are rejected; the type is stored in lower case);
//   - data is empty; for image/png, image/jpeg, image/gif, image/webp,
//     audio/wav (and audio/x-wav), audio/mpeg, audio/ogg and
//     application/pdf, when data does not start with that format's
//     signature; for text/*, when data is not valid UTF-8.
//
// NewWrite copies data, so the caller may reuse it at once. The size limit
// is the store's (see [Config]) and is checked by Put.
func NewWrite(scope Scope, idempotencyKey, mediaType string, data []byte) (Write, error) {
	if err := scope.Validate(); err != nil {
		return Write{}, err
	}
	if err := validateText("idempotency key", idempotencyKey, MaxKeyBytes); err != nil {
		return Write{}, err
	}
	mt, err := normalizeMediaType(mediaType)
	if err != nil {
		return Write{}, err
	}
	if len(data) == 0 {
		return Write{}, fmt.Errorf("%w: an artifact must not be empty", ErrInvalidInput)
	}
	if err := checkContent(mt, data); err != nil {
		return Write{}, err
	}
	sum := sha256.Sum256(data)
	return Write{
		scope:     scope,
		key:       idempotencyKey,
		mediaType: mt,
		data:      append([]byte(nil), data...),
		id:        ContentID(mt, data),
		sha256:    hex.EncodeToString(sum[:]),
	}, nil
}

// WithName returns w with a display name, or an error matching
// [ErrInvalidInput] when name is blank, longer than [MaxNameBytes], not
// valid UTF-8 or holds a control character.
func (w Write) WithName(name string) (Write, error) {
	if err := validateName(name); err != nil {
		return Write{}, err
	}
	w.name = name
	return w, nil
}

// WithExpiresAt returns w expiring at unixMS (milliseconds since the Unix
// epoch), or an error matching [ErrInvalidInput] when unixMS is negative.
// A time in the past is allowed: the artifact is stored expired.
func (w Write) WithExpiresAt(unixMS int64) (Write, error) {
	if unixMS < 0 {
		return Write{}, fmt.Errorf("%w: the expiry must not be negative", ErrInvalidInput)
	}
	w.expiresAt = &unixMS
	return w, nil
}

// Scope returns the scope written to.
func (w Write) Scope() Scope { return w.scope }

// IdempotencyKey returns the idempotency key.
func (w Write) IdempotencyKey() string { return w.key }

// MediaType returns the media type, in lower case.
func (w Write) MediaType() string { return w.mediaType }

// Bytes returns the content. The slice is the Write's own: callers must
// not modify it.
func (w Write) Bytes() []byte { return w.data }

// ID returns the content address the artifact will have.
func (w Write) ID() string { return w.id }

// Name returns the display name, "" for none.
func (w Write) Name() string { return w.name }

// ExpiresAtUnixMS returns a copy of the expiry, nil for never.
func (w Write) ExpiresAtUnixMS() *int64 { return copyExpiry(w.expiresAt) }

func copyExpiry(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

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
