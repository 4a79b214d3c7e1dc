package tool

import (
	"context"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/artifact"
)

// ErrNoArtifacts is returned by the methods of a nil *Artifacts: the run
// has no artifact store (the agent was built without one).
var ErrNoArtifacts = errors.New("tool: no artifact store is configured for this run")

// Artifacts is the artifact store of a run as its tools see it: bound to
// the agent's scope, so a tool can neither write into nor read from
// another scope. Tools reach it through Context.Artifacts, which is nil
// when the agent has no store; every method of a nil *Artifacts returns
// ErrNoArtifacts. It is safe for concurrent use when its store is.
//
// A tool stores what it produced and returns the reference in its output
// (ArtifactSource); history keeps the reference, and the bytes are read
// again only just before a request goes to the provider.
type Artifacts struct {
	store artifact.Store
	scope artifact.Scope
}

// NewArtifacts binds store to scope. It fails with an error matching
// artifact.ErrInvalidInput for the zero scope or a nil store.
func NewArtifacts(store artifact.Store, scope artifact.Scope) (*Artifacts, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: no artifact store", artifact.ErrInvalidInput)
	}
	if err := scope.Validate(); err != nil {
		return nil, err
	}
	return &Artifacts{store: store, scope: scope}, nil
}

// Scope returns the scope every artifact of the run lives in (the zero
// Scope for a nil *Artifacts).
func (a *Artifacts) Scope() artifact.Scope {
	if a == nil {
		return artifact.Scope{}
	}
	return a.scope
}

// Store returns the underlying store (nil for a nil *Artifacts). Reading
// or writing it directly bypasses the scope binding: prefer Put and Get.
func (a *Artifacts) Store() artifact.Store {
	if a == nil {
		return nil
	}
	return a.store
}

// NewWrite validates a write of data into the run's scope (see
// artifact.NewWrite); add a name or an expiry with its With methods.
func (a *Artifacts) NewWrite(idempotencyKey, mediaType string, data []byte) (artifact.Write, error) {
	if a == nil {
		return artifact.Write{}, ErrNoArtifacts
	}
	return artifact.NewWrite(a.scope, idempotencyKey, mediaType, data)
}

// Put stores w, which must be a write into the run's scope, and returns
// its reference (see artifact.Writer for the idempotency rules).
func (a *Artifacts) Put(ctx context.Context, w artifact.Write) (artifact.Ref, error) {
	if a == nil {
		return artifact.Ref{}, ErrNoArtifacts
	}
	if w.Scope() != a.scope {
		return artifact.Ref{}, fmt.Errorf("%w: the write is for another scope than the run's", artifact.ErrInvalidInput)
	}
	return a.store.Put(ctx, w)
}

// Get returns the bytes of the artifact ref names, which must belong to
// the run's scope (see artifact.Reader for the failures).
func (a *Artifacts) Get(ctx context.Context, ref artifact.Ref) ([]byte, error) {
	if a == nil {
		return nil, ErrNoArtifacts
	}
	if ref.Scope != a.scope {
		return nil, fmt.Errorf("%w: %s belongs to another scope than the run's", artifact.ErrInvalidInput, ref.ID)
	}
	got, err := a.store.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	return got.Bytes, nil
}
