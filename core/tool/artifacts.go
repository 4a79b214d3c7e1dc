package tool

import (
	"context"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/internal/artifactref"
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
	store ArtifactStore
	scope ArtifactScope
}

// ArtifactScope names the partition an artifact lives in (core/artifact's
// Scope).
type ArtifactScope = artifactref.Scope

// ArtifactWrite is a validated request to store one artifact
// (core/artifact's Write).
type ArtifactWrite = artifactref.Write

// StoredArtifact is a stored artifact as a store returns it: its reference
// and its bytes (core/artifact's Artifact).
type StoredArtifact = artifactref.Artifact

// ArtifactStore is what a run's tools need of an artifact store: every
// core/artifact Store (the memory, SQLite and PostgreSQL stores) is one.
type ArtifactStore interface {
	// Put stores w and returns its reference (see core/artifact's Writer).
	Put(ctx context.Context, w ArtifactWrite) (ArtifactRef, error)
	// Get returns the artifact ref names (see core/artifact's Reader).
	Get(ctx context.Context, ref ArtifactRef) (StoredArtifact, error)
}

// NewArtifacts binds store to scope. It fails with an error matching
// artifactref.ErrInvalidInput for the zero scope or a nil store.
func NewArtifacts(store ArtifactStore, scope ArtifactScope) (*Artifacts, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: no artifact store", artifactref.ErrInvalidInput)
	}
	if err := scope.Validate(); err != nil {
		return nil, err
	}
	return &Artifacts{store: store, scope: scope}, nil
}

// Scope returns the scope every artifact of the run lives in (the zero
// Scope for a nil *Artifacts).
func (a *Artifacts) Scope() ArtifactScope {
	if a == nil {
		return ArtifactScope{}
	}
	return a.scope
}

// Store returns the underlying store (nil for a nil *Artifacts). Reading
// or writing it directly bypasses the scope binding: prefer Put and Get.
func (a *Artifacts) Store() ArtifactStore {
	if a == nil {
		return nil
	}
	return a.store
}

// NewWrite validates a write of data into the run's scope (see
// core/artifact's NewWrite); add a name or an expiry with its With methods.
func (a *Artifacts) NewWrite(idempotencyKey, mediaType string, data []byte) (ArtifactWrite, error) {
	if a == nil {
		return ArtifactWrite{}, ErrNoArtifacts
	}
	return artifactref.NewWrite(a.scope, idempotencyKey, mediaType, data)
}

// Put stores w, which must be a write into the run's scope, and returns
// its reference (see core/artifact's Writer for the idempotency rules).
func (a *Artifacts) Put(ctx context.Context, w ArtifactWrite) (ArtifactRef, error) {
	if a == nil {
		return ArtifactRef{}, ErrNoArtifacts
	}
	if w.Scope() != a.scope {
		return ArtifactRef{}, fmt.Errorf("%w: the write is for another scope than the run's", artifactref.ErrInvalidInput)
	}
	return a.store.Put(ctx, w)
}

// Get returns the bytes of the artifact ref names, which must belong to
// the run's scope (see core/artifact's Reader for the failures).
func (a *Artifacts) Get(ctx context.Context, ref ArtifactRef) ([]byte, error) {
	if a == nil {
		return nil, ErrNoArtifacts
	}
	if ref.Scope != a.scope {
		return nil, fmt.Errorf("%w: %s belongs to another scope than the run's", artifactref.ErrInvalidInput, ref.ID)
	}
	got, err := a.store.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	return got.Bytes, nil
}
