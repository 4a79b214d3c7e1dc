package bridge

import (
	"github.com/starweaver-go/starweaver/core/toolset"
)

// layerSpec is one combinator a host wraps around a toolset: the host
// describes the toolset tree and core's combinators build it. Layers apply
// in order, innermost first.
type layerSpec struct {
	// Kind is "prefixed", "include", "exclude", "renamed", "metadata" or
	// "prepared" (the host's callback prepares the definitions, see
	// hostprepare.go).
	Kind     string            `json:"kind"`
	Prefix   string            `json:"prefix"`
	Names    []string          `json:"names"`
	Renames  map[string]string `json:"renames"`
	Metadata map[string]any    `json:"metadata"`
	Callback int64             `json:"callback"`
}

// combinedToolset builds a toolset spec whose members are combined under
// its name (toolset.Combined).
func combinedToolset(s toolsetSpec) (toolset.Toolset, error) {
	members, err := buildToolsets(s.Combined)
	if err != nil {
		return nil, err
	}
	return toolset.Combined(s.Name, members...), nil
}

// applyLayers wraps set in the spec's combinators, in order.
func applyLayers(set toolset.Toolset, layers []layerSpec) (toolset.Toolset, error) {
	for _, l := range layers {
		switch l.Kind {
		case "prefixed":
			if err := toolset.CheckPrefix(set.Name(), l.Prefix); err != nil {
				return nil, optionError(err)
			}
			set = toolset.Prefixed(l.Prefix, set)
		case "include":
			set = toolset.Include(set, l.Names...)
		case "exclude":
			set = toolset.Exclude(set, l.Names...)
		case "renamed":
			set = toolset.Renamed(set, l.Renames)
		case "metadata":
			set = toolset.WithMetadata(set, l.Metadata)
		case "prepared":
			if l.Callback == 0 {
				return nil, specError("toolset %q: prepared needs a host callback", set.Name())
			}
			set = hostToolsetPrepare(set, l.Callback)
		default:
			return nil, specError("toolset %q: unknown combinator %q", set.Name(), l.Kind)
		}
	}
	return set, nil
}

// kindToolset builds a toolset spec that names its kind: "mcp" is an MCP
// server's toolset (mcp.go), "skills" the skills instruction (skills.go).
// Any other kind fails.
func kindToolset(s toolsetSpec) (toolset.Toolset, error) {
	switch s.Kind {
	case "mcp":
		return mcpToolset(s)
	case "skills":
		return skillsToolset(s)
	case "":
		if s.Skills != nil {
			return nil, specError("toolset %q: a \"skills\" object needs \"kind\": \"skills\"", s.Name)
		}
		return nil, specError("toolset %q: an \"mcp\" object needs \"kind\": \"mcp\"", s.Name)
	}
	return nil, specError("toolset %q: unknown kind %q", s.Name, s.Kind)
}
