package toolset

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// PrepareFunc rewrites the definitions of a toolset for one run context.
// rc is never nil. defs are copies whose metadata maps may be changed; the
// schema maps (Parameters, ReturnSchema) are shared and must be replaced,
// not changed in place.
//
// The returned list is the toolset for that context: a definition left out
// hides its tool, a changed definition rewrites it (the tool still runs its
// own implementation, with its own configuration), and the order is kept.
// A nil return leaves every definition unchanged; an empty non-nil return
// hides every tool. Returning a definition whose name matches no tool
// (a rename or an addition) or the same name twice is an error.
type PrepareFunc func(rc *tool.RunContext, defs []tool.Definition) []tool.Definition

// Prepared rewrites the definitions of ts for each run context with
// prepare. Name, id, instructions and defaults are those of ts. Prepared
// panics if ts or prepare is nil.
func Prepared(ts Toolset, prepare PrepareFunc) Toolset {
	mustToolset(ts, "Prepared")
	if prepare == nil {
		panic("toolset: Prepared with a nil prepare function")
	}
	d := &derived{inner: ts, name: ts.Name(), id: ts.ID()}
	d.tools = func(rc *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		if rc == nil {
			rc = &tool.RunContext{}
		}
		defs := make([]tool.Definition, len(tools))
		byName := make(map[string]tool.Tool, len(tools))
		for i, t := range tools {
			defs[i] = t.Definition().Clone()
			byName[defs[i].Name] = t
		}
		out := prepare(rc, defs)
		if out == nil {
			return tools, nil
		}
		res := make([]tool.Tool, 0, len(out))
		for _, def := range out {
			t, ok := byName[def.Name]
			if !ok {
				return nil, fmt.Errorf("%w: toolset %q returned unknown tool %q", ErrPrepareRenamed, ts.Name(), def.Name)
			}
			if t == nil {
				return nil, &DuplicateError{Tool: def.Name, First: ts.Name(), Second: ts.Name()}
			}
			byName[def.Name] = nil
			res = append(res, wrap(t, def))
		}
		return res, nil
	}
	return d
}
