package artifact

import "github.com/starweaver-go/starweaver/core/internal/artifactref"

// The value types of artifacts live below core/tool (which names them
// tool.ArtifactRef, tool.ArtifactScope and tool.ArtifactWrite), so that
// tools can hold references without importing this package; these are
// their names here.

// Ref is the reference to a stored artifact that conversations and
// checkpoints carry instead of its bytes. Every field is fixed when the
// artifact is first stored; [Store.Get] returns the bytes only for a Ref
// equal to the stored one.
//
// A Ref decoded from JSON has been checked with [Ref.Validate].
//
// Validate checks every field; Equal compares two references field by
// field; UnmarshalJSON validates what it decodes.
type Ref = artifactref.Ref

// Scope names the partition an artifact lives in (a tenant, a user, a
// session). Scopes are short ASCII names made only of letters, digits and
// ". _ - :", so a scope can never hold a path separator or a quote and is
// safe in keys, file names and log lines.
//
// The zero Scope is not a valid scope: stores reject it. Build scopes with
// [ParseScope]; a Scope decoded from JSON is checked the same way, so
// "../tenant" fails to decode.
//
// String returns the name, IsZero reports the zero Scope and Validate
// fails for it; a Scope marshals as its name.
type Scope = artifactref.Scope

// MaxScopeBytes is the longest scope, in bytes.
const MaxScopeBytes = artifactref.MaxScopeBytes

// ParseScope returns the scope named s, or an error matching
// [ErrInvalidInput] unless s has 1 to [MaxScopeBytes] bytes of ASCII
// letters, digits, '.', '_', '-' or ':'.
func ParseScope(s string) (Scope, error) { return artifactref.ParseScope(s) }

// ValidateID returns an error matching [ErrInvalidInput] unless id has the
// shape of an artifact id: "sha256:" and 64 lowercase hex digits.
func ValidateID(id string) error { return artifactref.ValidateID(id) }

// Limits of a write.
const (
	// DefaultMaxBytes is the largest artifact a store accepts unless
	// configured otherwise with WithMaxBytes: 16 MiB, above what providers
	// accept inline for one image or document.
	DefaultMaxBytes = artifactref.DefaultMaxBytes
	// MaxKeyBytes is the longest idempotency key, in bytes.
	MaxKeyBytes = artifactref.MaxKeyBytes
	// MaxNameBytes is the longest name, in bytes.
	MaxNameBytes = artifactref.MaxNameBytes
)

// Write is a validated request to store one artifact. Build it with
// [NewWrite] and the With methods, which return a new Write and leave the
// receiver unchanged; a Write is immutable, so one can be retried or shared
// between goroutines. The zero Write is not valid: stores reject it.
//
// Its accessors (Scope, IdempotencyKey, MediaType, Bytes, ID, Name,
// ExpiresAtUnixMS) read it; WithName and WithExpiresAt derive new
// writes. The methods every Store implementation asks (Validate, Ref,
// Replay and Alias) decide a Put, so that the memory, SQLite and
// PostgreSQL stores cannot drift apart.
type Write = artifactref.Write

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
// is the store's (see [WithMaxBytes]) and is checked by Put.
func NewWrite(scope Scope, idempotencyKey, mediaType string, data []byte) (Write, error) {
	return artifactref.NewWrite(scope, idempotencyKey, mediaType, data)
}
