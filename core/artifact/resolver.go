package artifact

import (
	"context"
	"fmt"
)

// Resolver turns artifact references into bytes at the one place that
// needs them: just before a request goes to a model provider. Transcripts
// and checkpoints keep the references.
//
// It serves one scope only, so a reference smuggled in from another
// tenant's conversation is refused even though the store holds it, and it
// refuses artifacts larger than its limit before reading them, so one
// reference cannot pull an arbitrary amount of data into a request.
//
// Reader and Scope are required. A Resolver is safe for concurrent use
// when its Reader is.
type Resolver struct {
	Reader Reader
	Scope  Scope
	// MaxBytes is the largest artifact resolved; 0 means DefaultMaxBytes.
	MaxBytes int64
}

// Resolve returns the media type and bytes of the artifact ref names. It
// fails with ErrInvalidInput when ref is malformed, belongs to another
// scope than r.Scope, or is larger than the limit; otherwise with what
// Get fails with (ErrNotFound, ErrIntegrity, ErrExpired...), and with
// ErrIntegrity when the Reader returns another size than ref's.
func (r Resolver) Resolve(ctx context.Context, ref Ref) (mediaType string, data []byte, err error) {
	if err := ref.Validate(); err != nil {
		return "", nil, err
	}
	if ref.Scope != r.Scope {
		return "", nil, fmt.Errorf("%w: %s belongs to another scope than the resolver's", ErrInvalidInput, ref.ID)
	}
	limit := r.MaxBytes
	if limit == 0 {
		limit = DefaultMaxBytes
	}
	if ref.Size > limit {
		return "", nil, fmt.Errorf("%w: %s has %d bytes, more than the resolver's limit of %d", ErrInvalidInput, ref.ID, ref.Size, limit)
	}
	a, err := r.Reader.Get(ctx, ref)
	if err != nil {
		return "", nil, err
	}
	// Every Store of this module checks this already; a Reader written
	// elsewhere might not, and the limit must hold whatever it returns.
	if int64(len(a.Bytes)) != ref.Size {
		return "", nil, fmt.Errorf("%w: the reader returned %d bytes for %s, not %d", ErrIntegrity, len(a.Bytes), ref.ID, ref.Size)
	}
	return ref.MediaType, a.Bytes, nil
}
