package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/tool"
)

// artifactStoreSpec is the JSON given to sw_artifact_store_new. Kind
// chooses the backend: "memory", or a database of the durable stores
// ("sqlite", "postgres") named by the handle of an open store
// (sw_store_open), so that one location is one database whatever uses it.
type artifactStoreSpec struct {
	Kind string `json:"kind"`
	// MaxBytes is the largest artifact the store accepts
	// (artifact.DefaultMaxBytes when 0).
	MaxBytes int64 `json:"max_bytes"`
	// Store is the store handle of the database ("sqlite" and "postgres"
	// kinds; 0 for none).
	Store int64 `json:"store"`
}

// artifactStore is what an artifact store handle refers to.
type artifactStore struct {
	store artifact.Store
}

func buildArtifactStore(s artifactStoreSpec) (*artifactStore, error) {
	cfg := artifact.Config{MaxBytes: s.MaxBytes}
	if err := cfg.Validate(); err != nil {
		return nil, optionError(err)
	}
	switch s.Kind {
	case "memory":
		if s.Store != 0 {
			return nil, specError(`a "memory" artifact store takes no "store"`)
		}
		return &artifactStore{store: artifact.NewMemoryStore(cfg)}, nil
	case "sqlite", "postgres":
		return databaseArtifactStore(s.Kind, s.Store, cfg)
	}
	return nil, specError("unknown artifact store kind %q (known: memory, sqlite, postgres)", s.Kind)
}

// artifactPutSpec describes one sw_artifact_put; the bytes travel beside
// it, unencoded.
type artifactPutSpec struct {
	Scope           string `json:"scope"`
	IdempotencyKey  string `json:"idempotency_key"`
	MediaType       string `json:"media_type"`
	Name            string `json:"name"`
	ExpiresAtUnixMS *int64 `json:"expires_at_unix_ms"`
}

// put validates and stores one artifact and returns its reference as JSON.
func (s *artifactStore) put(ctx context.Context, spec artifactPutSpec, data []byte) ([]byte, error) {
	scope, err := artifact.ParseScope(spec.Scope)
	if err != nil {
		return nil, artifactError(err)
	}
	w, err := artifact.NewWrite(scope, spec.IdempotencyKey, spec.MediaType, data)
	if err == nil && spec.Name != "" {
		w, err = w.WithName(spec.Name)
	}
	if err == nil && spec.ExpiresAtUnixMS != nil {
		w, err = w.WithExpiresAt(*spec.ExpiresAtUnixMS)
	}
	if err != nil {
		return nil, artifactError(err)
	}
	ref, err := s.store.Put(ctx, w)
	if err != nil {
		return nil, artifactError(err)
	}
	return json.Marshal(ref)
}

// artifactGetSpec names the artifact sw_artifact_get reads; with a scope,
// only an artifact of that scope is read (tool.Artifacts' rule: a tool's
// context reads its run's scope only).
type artifactGetSpec struct {
	Reference json.RawMessage `json:"reference"`
	Scope     string          `json:"scope"`
}

// get returns the bytes of the artifact spec names.
func (s *artifactStore) get(ctx context.Context, spec artifactGetSpec) ([]byte, error) {
	var ref artifact.Ref
	if err := json.Unmarshal(spec.Reference, &ref); err != nil {
		if !errors.Is(err, artifact.ErrInvalidInput) { // not JSON at all
			err = fmt.Errorf("%w: artifact reference: %w", artifact.ErrInvalidInput, err)
		}
		return nil, artifactError(err)
	}
	if spec.Scope == "" {
		a, err := s.store.Get(ctx, ref)
		if err != nil {
			return nil, artifactError(err)
		}
		return a.Bytes, nil
	}
	scope, err := artifact.ParseScope(spec.Scope)
	if err != nil {
		return nil, artifactError(err)
	}
	bound, err := tool.NewArtifacts(s.store, scope)
	if err != nil {
		return nil, artifactError(err)
	}
	data, err := bound.Get(ctx, ref)
	if err != nil {
		return nil, artifactError(err)
	}
	return data, nil
}

// artifactListSpec names the page sw_artifact_list reads: a scope, the
// cursor (the next_cursor of the page before; "" for the first) and the
// page size (1 to artifact.MaxPageSize; there is no default).
type artifactListSpec struct {
	Scope string `json:"scope"`
	After string `json:"after"`
	Limit int    `json:"limit"`
}

// list returns one page of the scope's references as JSON.
func (s *artifactStore) list(ctx context.Context, spec artifactListSpec) ([]byte, error) {
	scope, err := artifact.ParseScope(spec.Scope)
	if err != nil {
		return nil, artifactError(err)
	}
	page, err := s.store.List(ctx, scope, spec.After, spec.Limit)
	if err != nil {
		return nil, artifactError(err)
	}
	return json.Marshal(page)
}

// artifactDeleteSpec names the artifact sw_artifact_delete removes.
type artifactDeleteSpec struct {
	Scope      string `json:"scope"`
	ArtifactID string `json:"artifact_id"`
}

// delete removes an artifact and its keys and reports {"deleted": bool}.
func (s *artifactStore) delete(ctx context.Context, spec artifactDeleteSpec) ([]byte, error) {
	scope, err := artifact.ParseScope(spec.Scope)
	if err != nil {
		return nil, artifactError(err)
	}
	deleted, err := s.store.Delete(ctx, scope, spec.ArtifactID)
	if err != nil {
		return nil, artifactError(err)
	}
	return json.Marshal(struct {
		Deleted bool `json:"deleted"`
	}{deleted})
}

// artifactPurgeSpec describes one sw_artifact_purge_expired: the scope,
// the instant expiries are compared with (now when absent) and the most
// artifacts deleted (1 to artifact.MaxPageSize; there is no default).
type artifactPurgeSpec struct {
	Scope     string `json:"scope"`
	NowUnixMS *int64 `json:"now_unix_ms"`
	Limit     int    `json:"limit"`
}

// purgeExpired deletes expired artifacts and reports {"purged": n}.
func (s *artifactStore) purgeExpired(ctx context.Context, spec artifactPurgeSpec) ([]byte, error) {
	scope, err := artifact.ParseScope(spec.Scope)
	if err != nil {
		return nil, artifactError(err)
	}
	now := time.Now().UnixMilli()
	if spec.NowUnixMS != nil {
		now = *spec.NowUnixMS
	}
	n, err := s.store.PurgeExpired(ctx, scope, now, spec.Limit)
	if err != nil {
		return nil, artifactError(err)
	}
	return json.Marshal(struct {
		Purged int `json:"purged"`
	}{n})
}

// artifactError gives an artifact failure its stable slug (artifact.KindOf);
// a failure of no known kind is reported as the store's unavailability.
func artifactError(err error) error {
	kind := artifact.KindOf(err)
	if kind == "" {
		kind = artifact.KindUnavailable
	}
	return &abiError{Type: string(kind), Message: err.Error()}
}

// artifactsSpec is the agent spec's "artifacts": the handle of an artifact
// store, the scope the agent's runs use, and the largest artifact resolved
// into a model request.
type artifactsSpec struct {
	Store        int64  `json:"store"`
	Scope        string `json:"scope"`
	ResolveLimit int64  `json:"resolve_limit"`
}

// outputBudgetSpec is the agent spec's "output_budget" (agent.OutputBudget).
type outputBudgetSpec struct {
	MaxBytes  int  `json:"max_bytes"`
	HeadBytes int  `json:"head_bytes"`
	Disabled  bool `json:"disabled"`
}

// applyArtifacts sets an agent spec's artifact options on b; core checks
// the values it can check (sizes, the store) when the agent is built.
func (s agentSpec) applyArtifacts(b *agent.Builder) error {
	if a := s.Artifacts; a != nil {
		st, err := lookup[*artifactStore](a.Store)
		if err != nil {
			return err
		}
		scope, err := artifact.ParseScope(a.Scope)
		if err != nil {
			return specError("artifacts: %v", err)
		}
		b.Artifacts(scope, st.store)
		if a.ResolveLimit != 0 {
			b.ArtifactResolveLimit(a.ResolveLimit)
		}
	}
	if s.MaxToolOutputBytes != nil {
		b.MaxToolOutputBytes(*s.MaxToolOutputBytes)
	}
	if ob := s.OutputBudget; ob != nil {
		b.OutputBudget(agent.OutputBudget{MaxBytes: ob.MaxBytes, HeadBytes: ob.HeadBytes, Disabled: ob.Disabled})
	}
	return nil
}

// artifactRunError is the slug of a run that failed at the artifact
// boundary (agent.ErrArtifacts), or "" for any other failure.
func artifactRunError(err error) string {
	if !errors.Is(err, agent.ErrArtifacts) {
		return ""
	}
	if k := artifact.KindOf(err); k != "" {
		return string(k)
	}
	return string(artifact.KindUnavailable)
}
