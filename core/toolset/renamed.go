package toolset

import (
	"fmt"
	"maps"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Renamed gives tools of ts new names: names maps an old name to a new
// one. A renamed definition records the name it replaced under
// metadata.original_tool_name (the innermost original is kept when tools
// are renamed twice); calling it runs the original tool with its
// configuration. The tool's Context still carries the new name, the one
// the model called. Old names that match no tool are ignored; a blank new
// name, or a new name that collides with another tool, makes Tools fail.
// The map is copied. Renamed panics if ts is nil.
func Renamed(ts Toolset, names map[string]string) Toolset {
	mustToolset(ts, "Renamed")
	m := maps.Clone(names)
	d := &derived{inner: ts, name: ts.Name(), id: ts.ID()}
	d.tools = func(_ *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		out := make([]tool.Tool, len(tools))
		for i, t := range tools {
			def := t.Definition()
			to, ok := m[def.Name]
			if !ok || to == def.Name {
				out[i] = t
				continue
			}
			if to == "" {
				return nil, fmt.Errorf("toolset %q: cannot rename tool %q to an empty name", ts.Name(), def.Name)
			}
			orig := def.Name
			if o, ok := def.Metadata[tool.MetaOriginalName].(string); ok && o != "" {
				orig = o
			}
			def = withMetadata(def, map[string]any{tool.MetaOriginalName: orig})
			def.Name = to
			out[i] = wrap(t, def)
		}
		if err := checkUnique(ts.Name(), out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return d
}
