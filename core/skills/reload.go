package skills

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/refresh"
)

// ChangeKind is how a skill changed between two registries.
type ChangeKind string

// The change kinds, in the order changes of one name sort.
const (
	Added    ChangeKind = "added"
	Removed  ChangeKind = "removed"
	Modified ChangeKind = "modified"
)

func (k ChangeKind) rank() int { return slices.Index([]ChangeKind{Added, Removed, Modified}, k) }

// Change is one skill that differs between two registries. PreviousPath
// is empty for an added skill, Path for a removed one.
type Change struct {
	Kind         ChangeKind `json:"kind"`
	Name         string     `json:"name"`
	PreviousPath string     `json:"previous_path,omitempty"`
	Path         string     `json:"path,omitempty"`
}

// ReloadReport is the result of a reload: the new registry, the scan's
// diagnostics and the changes from the previous registry.
type ReloadReport struct {
	Registry    *Registry
	Diagnostics []Diagnostic
	Changes     []Change
}

// Changes compares two registries: skills only in next are added, only in
// prev removed, and in both modified when the description, path,
// metadata or whether a body is held differ. The result is sorted by
// (name, kind).
func Changes(prev, next *Registry) []Change {
	out := []Change{}
	for _, p := range next.Packages() {
		old, ok := prev.Get(p.Name)
		switch {
		case !ok:
			out = append(out, Change{Kind: Added, Name: p.Name, Path: p.Path})
		case modified(old, p):
			out = append(out, Change{Kind: Modified, Name: p.Name, PreviousPath: old.Path, Path: p.Path})
		}
	}
	for _, p := range prev.Packages() {
		if _, ok := next.Get(p.Name); !ok {
			out = append(out, Change{Kind: Removed, Name: p.Name, PreviousPath: p.Path})
		}
	}
	slices.SortFunc(out, func(a, b Change) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return a.Kind.rank() - b.Kind.rank()
	})
	return out
}

func modified(a, b Package) bool {
	return a.Name != b.Name || a.Description != b.Description || a.Path != b.Path ||
		a.Activated() != b.Activated() || !metadataEqual(a.Metadata, b.Metadata)
}

func metadataEqual(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return maps.EqualFunc(a, b, func(x, y any) bool { return reflect.DeepEqual(x, y) })
}

// ReloadWithReport scans scopes again as ScanWithReport does and reports
// what changed from r. r itself is unchanged: keep the report's registry.
func (r *Registry) ReloadWithReport(ctx context.Context, p env.Provider, scopes []SourceScope) (*ReloadReport, error) {
	rep, err := ScanWithReport(ctx, p, scopes)
	if err != nil {
		return nil, err
	}
	return &ReloadReport{Registry: rep.Registry, Diagnostics: rep.Diagnostics, Changes: Changes(r, rep.Registry)}, nil
}

// Reload reloads as ReloadWithReport does and publishes skills_reloaded
// on actx (when not nil). A failed scan publishes nothing.
func (r *Registry) Reload(ctx context.Context, p env.Provider, scopes []SourceScope, actx *agentctx.Context) (*ReloadReport, error) {
	rep, err := r.ReloadWithReport(ctx, p, scopes)
	if err != nil {
		return nil, err
	}
	if actx != nil {
		actx.Publish(EventReloaded, ReloadedPayload(rep))
	}
	return rep, nil
}

// ReloadBinding decides when a host's skill directories are due for a
// reload (see [refresh.Binding]): an observed inventory change once it has
// been pending for DebounceMS (reason inventory_changed), otherwise every
// IntervalMS (reason interval_elapsed). The zero value never reloads.
type ReloadBinding = refresh.Binding

// The reasons a ReloadBinding gives for a due reload.
const (
	ReasonInventoryChanged = refresh.ReasonInventoryChanged
	ReasonIntervalElapsed  = refresh.ReasonIntervalElapsed
)

// ReloadIfDue reloads when b says a reload is due at nowMS and returns
// the report (nil when none was due) and the binding to keep. The
// skills_reloaded event then also carries reload_scheduled (true),
// reload_reason, reload_ms (nowMS) and inventory_version. A failed reload
// returns the error and b unchanged, so the reload stays due.
func (r *Registry) ReloadIfDue(ctx context.Context, p env.Provider, scopes []SourceScope, actx *agentctx.Context, b ReloadBinding, nowMS int64) (*ReloadReport, ReloadBinding, error) {
	reason, due := b.Due(nowMS)
	if !due {
		return nil, b, nil
	}
	rep, err := r.ReloadWithReport(ctx, p, scopes)
	if err != nil {
		return nil, b, err
	}
	if actx != nil {
		payload := ReloadedPayload(rep)
		payload["reload_scheduled"], payload["reload_reason"], payload["reload_ms"] = true, reason, nowMS
		payload["inventory_version"] = b.Version()
		actx.Publish(EventReloaded, payload)
	}
	return rep, b.Refreshed(nowMS), nil
}
