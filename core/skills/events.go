package skills

// The context events of this package (agentctx.Context.Publish); a running
// agent delivers them to its host as custom events of that kind.
const (
	// EventScanned carries ScannedPayload: published when a run starts by
	// a ScanReport's toolset.
	EventScanned = "skills_scanned"
	// EventActivated carries ActivatedPayload.
	EventActivated = "skill_activated"
	// EventReloaded carries ReloadedPayload (plus reload_scheduled,
	// reload_reason, reload_ms and inventory_version for a reload a
	// ReloadBinding scheduled).
	EventReloaded = "skills_reloaded"
)

// ScannedPayload is the payload of skills_scanned: package_count,
// packages [{name, description, path, activated}] in name order, and
// diagnostics.
func ScannedPayload(r *ScanReport) map[string]any {
	var reg *Registry
	diags := []Diagnostic{}
	if r != nil {
		reg = r.Registry
		if r.Diagnostics != nil {
			diags = r.Diagnostics
		}
	}
	return map[string]any{"package_count": reg.Len(), "packages": summaries(reg), "diagnostics": diags}
}

// ActivatedPayload is the payload of skill_activated: name, description,
// path, body_bytes (the body's length in bytes) and metadata.
func ActivatedPayload(p Package) map[string]any {
	n := 0
	if p.Body != nil {
		n = len(*p.Body)
	}
	meta := p.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	return map[string]any{"name": p.Name, "description": p.Description, "path": p.Path, "body_bytes": n, "metadata": meta}
}

// ReloadedPayload is the payload of skills_reloaded: ScannedPayload's
// keys for the new registry and changes.
func ReloadedPayload(r *ReloadReport) map[string]any {
	p := ScannedPayload(&ScanReport{Registry: r.Registry, Diagnostics: r.Diagnostics})
	changes := r.Changes
	if changes == nil {
		changes = []Change{}
	}
	p["changes"] = changes
	return p
}

// summaries is the packages of reg as event summaries.
func summaries(reg *Registry) []map[string]any {
	out := []map[string]any{}
	for _, p := range reg.Packages() {
		out = append(out, map[string]any{"name": p.Name, "description": p.Description, "path": p.Path, "activated": p.Activated()})
	}
	return out
}
