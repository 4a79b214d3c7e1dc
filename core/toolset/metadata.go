package toolset

import (
	"maps"

	"github.com/starweaver-go/starweaver/core/tool"
)

// WithMetadata merges md into the metadata of every definition of ts. On a
// key both define, md wins: the wrapper is the later, outer decision (the
// way a toolset tags its tools with a "bundle"). Reserved keys are not
// protected, so md can override them too. The toolset keeps its name; its
// id becomes "{id}.metadata" (no id stays no id). The map is copied
// (shallowly) and must not hold values that are changed later. WithMetadata
// panics if ts is nil.
func WithMetadata(ts Toolset, md map[string]any) Toolset {
	mustToolset(ts, "WithMetadata")
	kv := maps.Clone(md)
	d := &derived{inner: ts, name: ts.Name(), id: suffixID(ts.ID(), ".metadata")}
	d.tools = func(_ *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		if len(kv) == 0 {
			return tools, nil
		}
		out := make([]tool.Tool, len(tools))
		for i, t := range tools {
			out[i] = wrap(t, withMetadata(t.Definition(), kv))
		}
		return out, nil
	}
	return d
}
