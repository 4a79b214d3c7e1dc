package toolset

import (
	"slices"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Filtered keeps the tools of ts whose definition satisfies keep, for
// every run. Name, id, instructions and defaults are those of ts; the kept
// tools are returned unwrapped. For filtering that depends on the run
// context use [Prepared]. Filtered panics if ts or keep is nil.
func Filtered(ts Toolset, keep func(tool.Definition) bool) Toolset {
	mustToolset(ts, "Filtered")
	if keep == nil {
		panic("toolset: Filtered with a nil predicate")
	}
	d := &derived{inner: ts, name: ts.Name(), id: ts.ID()}
	d.tools = func(_ *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		return slices.DeleteFunc(tools, func(t tool.Tool) bool { return !keep(t.Definition()) }), nil
	}
	return d
}

// Include keeps only the tools of ts named in names. Names that match no
// tool are ignored.
func Include(ts Toolset, names ...string) Toolset {
	set := nameSet(names)
	return Filtered(ts, func(d tool.Definition) bool { return set[d.Name] })
}

// Exclude drops the tools of ts named in names. Names that match no tool
// are ignored.
func Exclude(ts Toolset, names ...string) Toolset {
	set := nameSet(names)
	return Filtered(ts, func(d tool.Definition) bool { return !set[d.Name] })
}

func nameSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}
