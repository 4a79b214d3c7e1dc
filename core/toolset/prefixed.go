package toolset

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
	"github.com/starweaver-go/starweaver/core/tool"
)

// CheckPrefix reports a prefix Prefixed cannot use (the empty one, with
// which Tools fails), before the toolset is built: the error names the
// toolset it would wrap (`toolset "docs": prefixed needs a non-empty
// prefix`) and matches [tool.ErrInvalidOption].
func CheckPrefix(toolset, prefix string) error {
	if prefix == "" {
		return optionerr.New(tool.ErrInvalidOption, "toolset %q: prefixed needs a non-empty prefix", toolset)
	}
	return nil
}

// SelfPrefixer is implemented by a toolset whose tools refer to one
// another by name, so that renaming them from outside would break them: a
// tool proxy (core/catalog) dispatches to the tools it hides by their
// registered names. Prefixed asks it for its prefixed form instead.
type SelfPrefixer interface {
	// WithPrefix returns the toolset as Prefixed describes it: the tools
	// the model sees named "{prefix}_{name}", the toolset's name, id and
	// instruction groups prefixed likewise. prefix is not empty.
	WithPrefix(prefix string) Toolset
}

// Prefixed namespaces a toolset: every tool is named "{prefix}_{name}",
// the toolset's name and id become "{prefix}_{name}" and "{prefix}_{id}"
// (no id stays no id), and every instruction group becomes
// "{prefix}_{group}". The tools keep their configuration and behaviour.
// A toolset that is a [SelfPrefixer] prefixes itself (two prefixed tool
// proxies then live in one agent, each calling its own tools). An empty
// prefix makes Tools fail. Prefixed panics if ts is nil.
func Prefixed(prefix string, ts Toolset) Toolset {
	mustToolset(ts, "Prefixed")
	if sp, ok := ts.(SelfPrefixer); ok && prefix != "" {
		return sp.WithPrefix(prefix)
	}
	p := prefix + "_"
	id := ts.ID()
	if id != "" {
		id = p + id
	}
	d := &derived{inner: ts, name: p + ts.Name(), id: id}
	d.tools = func(_ *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		if prefix == "" {
			return nil, errors.New("toolset: Prefixed needs a non-empty prefix")
		}
		out := make([]tool.Tool, len(tools))
		for i, t := range tools {
			def := t.Definition().Clone()
			def.Name = p + def.Name
			out[i] = wrap(t, def)
		}
		return out, nil
	}
	d.instructions = func(rc *tool.RunContext) []Instruction {
		ins := ts.Instructions(rc)
		out := make([]Instruction, len(ins))
		for i, in := range ins {
			out[i] = Instruction{Group: p + in.Group, Content: in.Content}
		}
		return out
	}
	return d
}
