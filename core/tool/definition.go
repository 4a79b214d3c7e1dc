package tool

import "maps"

// Definition is the provider-neutral description of a tool that is sent to
// the model.
type Definition struct {
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	Parameters   map[string]any `json:"parameters"`
	ReturnSchema map[string]any `json:"return_schema,omitempty"`
	Strict       *bool          `json:"strict,omitempty"`
	Sequential   *bool          `json:"sequential,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
}

// Clone returns a copy whose metadata map may be changed without touching d.
// Schemas are shared: they are treated as immutable once registered.
func (d Definition) Clone() Definition {
	d.Metadata = maps.Clone(d.Metadata)
	return d
}

// IsSequential reports whether the tool asks for model-order execution.
func (d Definition) IsSequential() bool { return d.Sequential != nil && *d.Sequential }

// IsStrict reports whether the tool asks providers for a strict schema.
func (d Definition) IsStrict() bool { return d.Strict != nil && *d.Strict }

func boolPtr(b bool) *bool { return &b }
