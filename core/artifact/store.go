package artifact

import (
	"context"

	"github.com/starweaver-go/starweaver/core/internal/artifactref"
)

// MaxPageSize is the largest limit of Store.List and Store.PurgeExpired.
const MaxPageSize = 1000

// Artifact is a stored artifact as Get returns it: its reference and its
// bytes.
type Artifact = artifactref.Artifact

// Page is one page of Store.List: references in id order, and the cursor
// of the next page ("" on the last page).
type Page struct {
	Items []Ref  `json:"items"`
	Next  string `json:"next_cursor,omitempty"`
}

// Reader returns the bytes of a stored artifact. It is the part of a
// [Store] that resolving references needs (see [Resolver]).
type Reader interface {
	// Get returns the artifact ref names. It fails with ErrInvalidInput
	// for a malformed ref, ErrNotFound when ref's scope holds no artifact
	// with ref's id, ErrIntegrity when the stored bytes no longer match the
	// stored reference (size, SHA-256 or id) or when ref differs from the
	// stored reference in any field, and ErrExpired from the instant the
	// artifact expires (expiry ≤ now) until it is purged.
	Get(ctx context.Context, ref Ref) (Artifact, error)
}

// ReaderFunc is an adapter to use an ordinary function as a [Reader].
type ReaderFunc func(ctx context.Context, ref Ref) (Artifact, error)

// Get calls f(ctx, ref).
func (f ReaderFunc) Get(ctx context.Context, ref Ref) (Artifact, error) { return f(ctx, ref) }

// Writer stores artifacts. It is the part of a [Store] that tools need.
type Writer interface {
	// Put stores w and returns its reference, with CreatedAtUnixMS set by
	// the store. It is idempotent per (scope, key): when the key already
	// names the same artifact with the same name and expiry, Put returns
	// the stored reference unchanged (the first creation time included);
	// when it names another artifact, or the same one with another name or
	// expiry, Put fails with ErrIdempotencyConflict. A new key for content
	// the scope already holds is aliased to it when the name and expiry
	// match and fails with ErrMetadataConflict when they differ. Put fails
	// with ErrInvalidInput for a zero Write or one larger than the store's
	// limit. A failed Put stores nothing.
	Put(ctx context.Context, w Write) (Ref, error)
}

// WriterFunc is an adapter to use an ordinary function as a [Writer].
type WriterFunc func(ctx context.Context, w Write) (Ref, error)

// Put calls f(ctx, w).
func (f WriterFunc) Put(ctx context.Context, w Write) (Ref, error) { return f(ctx, w) }

// Store keeps artifacts per scope. No method ever reads, lists, deletes or
// purges outside the scope it is given. Implementations are safe for
// concurrent use; backend failures match store.ErrUnavailable.
type Store interface {
	Reader
	Writer
	// List returns up to limit references of scope in id order, starting
	// after the id after ("" for the first page; the cursor is exclusive).
	// Expired artifacts are listed until purged. It fails with
	// ErrInvalidInput unless 1 ≤ limit ≤ MaxPageSize and after is "" or an
	// artifact id.
	List(ctx context.Context, scope Scope, after string, limit int) (Page, error)
	// Delete removes the artifact id of scope and every idempotency key
	// naming it, so the keys can be used again. It reports whether there
	// was such an artifact; deleting again returns false, nil.
	Delete(ctx context.Context, scope Scope, id string) (bool, error)
	// PurgeExpired deletes at most limit artifacts of scope whose expiry
	// is at or before nowUnixMS, earliest expiry first (ties in id order),
	// with their idempotency keys, and returns how many it deleted. Call it
	// until it returns less than limit to purge everything. It fails with
	// ErrInvalidInput unless 1 ≤ limit ≤ MaxPageSize and nowUnixMS ≥ 0.
	PurgeExpired(ctx context.Context, scope Scope, nowUnixMS int64, limit int) (int, error)
}
