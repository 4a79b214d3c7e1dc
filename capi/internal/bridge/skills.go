package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/skills"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// closeProvider releases a provider built for one request (a local
// environment holds its root open).
func closeProvider(p env.Provider) {
	if c, ok := p.(interface{ Close() error }); ok {
		_ = c.Close()
	}
}

// scanProvider builds the provider a skills request names (the shared
// environment spec, see environment.go).
func scanProvider(s *environmentSpec) (env.Provider, error) {
	if s == nil {
		return nil, specError("skills: an \"environment\" is required")
	}
	return s.build()
}

// skillsScanSpec is the request of sw_skills_scan.
type skillsScanSpec struct {
	Environment *environmentSpec     `json:"environment"`
	Scopes      []skills.SourceScope `json:"scopes"`
	// Report makes the scan lenient (diagnostics instead of errors).
	Report bool `json:"report"`
	// Previous, when set, makes the scan a reload compared with these
	// packages: the result also has "changes" (and is always lenient).
	Previous *[]skills.Package `json:"previous"`
	// Binding, with Previous, makes the reload happen only when the
	// binding says it is due at NowMS.
	Binding *skills.ReloadBinding `json:"binding"`
	NowMS   int64                 `json:"now_ms"`
}

// skillsDueResult is what sw_skills_scan writes for a request with a
// binding.
type skillsDueResult struct {
	Reloaded bool                 `json:"reloaded"`
	Binding  skills.ReloadBinding `json:"binding"`
	Result   *skillsScanResult    `json:"result"`
}

// skillsScanResult is what sw_skills_scan writes.
type skillsScanResult struct {
	Packages    []skills.Package    `json:"packages"`
	Diagnostics []skills.Diagnostic `json:"diagnostics,omitempty"`
	Changes     []skills.Change     `json:"changes,omitempty"`
	// Event is a reload's skills_reloaded payload, for a host that
	// publishes it on a session.
	Event map[string]any `json:"event,omitempty"`
}

// skillsScan runs sw_skills_scan.
func skillsScan(req []byte) ([]byte, error) {
	var s skillsScanSpec
	if err := decodeStrict(req, &s); err != nil {
		return nil, err
	}
	p, err := scanProvider(s.Environment)
	if err != nil {
		return nil, err
	}
	defer closeProvider(p)
	ctx := context.Background()
	if s.Binding != nil {
		if s.Previous == nil {
			return nil, specError("skills: a \"binding\" needs the \"previous\" packages")
		}
		return skillsReloadIfDue(ctx, p, s)
	}
	var res skillsScanResult
	switch {
	case s.Previous != nil:
		rep, err := skills.NewRegistry(*s.Previous...).ReloadWithReport(ctx, p, s.Scopes)
		if err != nil {
			return nil, skillsError(err)
		}
		res = skillsScanResult{Packages: rep.Registry.Packages(), Diagnostics: nonNilSlice(rep.Diagnostics), Changes: nonNilSlice(rep.Changes),
			Event: skills.ReloadedPayload(rep)}
	case s.Report:
		rep, err := skills.ScanWithReport(ctx, p, s.Scopes)
		if err != nil {
			return nil, skillsError(err)
		}
		res = skillsScanResult{Packages: rep.Registry.Packages(), Diagnostics: nonNilSlice(rep.Diagnostics)}
	default:
		reg, err := skills.Scan(ctx, p, s.Scopes)
		if err != nil {
			return nil, skillsError(err)
		}
		res = skillsScanResult{Packages: reg.Packages()}
	}
	return json.Marshal(res)
}

// skillsReloadIfDue reloads when the request's binding says so; the
// event is the one core publishes, taken from a context of its own.
func skillsReloadIfDue(ctx context.Context, p env.Provider, s skillsScanSpec) ([]byte, error) {
	actx := agentctx.New()
	rep, b, err := skills.NewRegistry(*s.Previous...).ReloadIfDue(ctx, p, s.Scopes, actx, *s.Binding, s.NowMS)
	if err != nil {
		return nil, skillsError(err)
	}
	out := skillsDueResult{Reloaded: rep != nil, Binding: b}
	if rep != nil {
		var event map[string]any
		if evs := actx.TakeEvents(); len(evs) == 1 {
			event = evs[0].Payload
		}
		out.Result = &skillsScanResult{Packages: rep.Registry.Packages(), Diagnostics: nonNilSlice(rep.Diagnostics),
			Changes: nonNilSlice(rep.Changes), Event: event}
	}
	return json.Marshal(out)
}

// skillsActivateSpec is the request of sw_skills_activate.
type skillsActivateSpec struct {
	Environment *environmentSpec `json:"environment"`
	Path        string           `json:"path"`
}

// skillsActivate runs sw_skills_activate.
func skillsActivate(req []byte) ([]byte, error) {
	var s skillsActivateSpec
	if err := decodeStrict(req, &s); err != nil {
		return nil, err
	}
	p, err := scanProvider(s.Environment)
	if err != nil {
		return nil, err
	}
	defer closeProvider(p)
	pkg, err := skills.Activate(context.Background(), p, s.Path)
	if err != nil {
		return nil, skillsError(err)
	}
	return json.Marshal(map[string]any{"package": pkg, "event": skills.ActivatedPayload(pkg)})
}

// skillsError classifies a scan's or an activation's error: an invalid
// scope is the spec's; a skill file that is missing, refused, malformed
// or not text is the argument's; anything else is internal.
func skillsError(err error) error {
	switch {
	case errors.Is(err, skills.ErrInvalidScope):
		return specError("%v", err)
	case errors.Is(err, env.ErrNotFound), errors.Is(err, env.ErrAccessDenied), errors.Is(err, env.ErrInvalidRequest),
		errors.Is(err, skills.ErrMissingFrontmatter), errors.Is(err, skills.ErrInvalidFrontmatter),
		errors.Is(err, skills.ErrMissingField), errors.Is(err, skills.ErrTooLarge), errors.Is(err, skills.ErrNotText):
		return &abiError{Type: "invalid_argument", Message: err.Error()}
	}
	return err
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// skillsToolsetSpec is the "skills" object of a toolset spec of kind
// "skills": the instruction-only toolset of scanned packages.
type skillsToolsetSpec struct {
	Packages []skills.Package `json:"packages"`
	// PublishScan makes the toolset publish skills_scanned (the packages
	// and Diagnostics) when each run starts.
	PublishScan bool                `json:"publish_scan"`
	Diagnostics []skills.Diagnostic `json:"diagnostics"`
}

// skillsToolset builds a toolset spec of kind "skills". It is named and
// identified "skills"; it has no tools and one instruction.
func skillsToolset(s toolsetSpec) (toolset.Toolset, error) {
	if s.Skills == nil {
		return nil, specError("toolset %q: kind \"skills\" needs a \"skills\" object", s.Name)
	}
	if s.MCP != nil {
		return nil, specError("toolset %q: a skills toolset takes no \"mcp\" object", s.Name)
	}
	if len(s.Tools) > 0 || len(s.Instructions) > 0 || (s.Name != "" && s.Name != skills.ToolsetName) {
		return nil, specError("toolset %q: a skills toolset is named \"skills\" and takes its instruction from its packages", s.Name)
	}
	spec := *s.Skills
	for _, p := range spec.Packages {
		if err := p.Validate(); err != nil {
			return nil, specError("%v", err)
		}
	}
	if len(spec.Diagnostics) > 0 && !spec.PublishScan {
		return nil, specError("toolset \"skills\": diagnostics are published with \"publish_scan\": true")
	}
	if spec.PublishScan {
		rep := &skills.ScanReport{Registry: skills.NewRegistry(spec.Packages...), Diagnostics: nonNilSlice(spec.Diagnostics)}
		return rep.Toolset(), nil
	}
	return skills.Toolset(spec.Packages), nil
}
