package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// StandardBatchPluginID is the id of the plugin that installs the native
// batch tool ([StandardBatchPlugin]).
const StandardBatchPluginID = "starweaver.batch"

// PluginContext is what an agent tells a plugin's orchestrating tools
// when it installs them: its scheduling policy, and the ordering hook
// through which the children of an orchestrating call realise what they
// declared (nil when the agent has no intent journal).
type PluginContext struct {
	// Sequential and MaxConcurrency are the agent's (see
	// Builder.Sequential and Builder.MaxConcurrency).
	Sequential     bool
	MaxConcurrency int
	// DrainChildren realises the intents of a finished batch's children
	// in call order (batch.Options.Drain); nil without an intent journal.
	DrainChildren func(ctx context.Context, tc *tool.Context, children []batch.Child) error
}

// OrchestratingTool builds, for one agent, a toolset whose tools dispatch
// other calls of the run (tool.Context.DispatchBatch), such as the
// native batch tool.
type OrchestratingTool interface {
	Toolset(pc PluginContext) toolset.Toolset
}

// OrchestratingToolFunc is an adapter to allow the use of ordinary
// functions as OrchestratingTools.
type OrchestratingToolFunc func(pc PluginContext) toolset.Toolset

// Toolset calls f.
func (f OrchestratingToolFunc) Toolset(pc PluginContext) toolset.Toolset { return f(pc) }

// PluginSpec is what a plugin installs into an agent: orchestrating tools,
// each built with the agent's PluginContext. The zero value installs
// nothing; the With methods return a copy with one more.
type PluginSpec struct {
	orchestrating []OrchestratingTool
}

// NewPluginSpec returns an empty spec.
func NewPluginSpec() PluginSpec { return PluginSpec{} }

// WithOrchestratingTool returns s installing t too (nil is ignored).
func (s PluginSpec) WithOrchestratingTool(t OrchestratingTool) PluginSpec {
	if t == nil {
		return s
	}
	s.orchestrating = append(slices.Clip(s.orchestrating), t)
	return s
}

// PluginFactory is a plugin an agent installs: a stable id (two plugins
// with one id make New fail) and the spec it installs.
type PluginFactory interface {
	PluginID() string
	PluginSpec() PluginSpec
}

// StaticPluginFactory is a PluginFactory installing a fixed spec.
type StaticPluginFactory struct {
	id   string
	spec PluginSpec
}

// NewStaticPluginFactory returns the plugin id installing spec.
func NewStaticPluginFactory(id string, spec PluginSpec) *StaticPluginFactory {
	return &StaticPluginFactory{id: id, spec: spec}
}

// PluginID returns the plugin's id.
func (f *StaticPluginFactory) PluginID() string { return f.id }

// PluginSpec returns the plugin's spec.
func (f *StaticPluginFactory) PluginSpec() PluginSpec { return f.spec }

// StandardBatchOrchestratingTool is the native batch tool as an
// orchestrating tool: the "batch" toolset of package batch, built with the
// agent's scheduling policy and, with an intent journal, its children's
// drain (see Builder.BatchTool).
func StandardBatchOrchestratingTool() OrchestratingTool {
	return OrchestratingToolFunc(func(pc PluginContext) toolset.Toolset {
		return batch.Tools(batch.Options{Sequential: pc.Sequential, MaxConcurrency: pc.MaxConcurrency, Drain: pc.DrainChildren})
	})
}

// StandardBatchPlugin is the plugin (id StandardBatchPluginID) the
// standard setup installs when it offers the batch tool
// (Builder.BatchTool, Python's batch_tool=True). A host that assembles its
// plugins itself opts in with Builder.Plugin(StandardBatchPlugin()), or
// with its own factory over StandardBatchOrchestratingTool.
func StandardBatchPlugin() PluginFactory {
	return NewStaticPluginFactory(StandardBatchPluginID, NewPluginSpec().WithOrchestratingTool(StandardBatchOrchestratingTool()))
}

// BuiltinPlugins returns the built-in plugins named by ids, in order (the
// names a host spec's "plugins" lists; today only StandardBatchPluginID).
// An unknown id is ErrConfig.
func BuiltinPlugins(ids []string) ([]PluginFactory, error) {
	out := make([]PluginFactory, 0, len(ids))
	for _, id := range ids {
		switch id {
		case StandardBatchPluginID:
			out = append(out, StandardBatchPlugin())
		default:
			return nil, fmt.Errorf("%w: unknown plugin %q (built-in plugins: %s)", ErrConfig, id, StandardBatchPluginID)
		}
	}
	return out, nil
}

// Plugin installs f: its orchestrating tools join the agent's toolsets,
// after the agent's own, in the order plugins were added. A nil f, an
// empty id or an id installed twice makes Build report ErrConfig.
func (b *Builder) Plugin(f PluginFactory) *Builder {
	b.opts.Plugins = append(b.opts.Plugins, f)
	return b
}

// checkPlugins reports a nil plugin, an empty id or a repeated one.
func checkPlugins(ps []PluginFactory) error {
	seen := make(map[string]bool, len(ps))
	for i, p := range ps {
		if p == nil {
			return fmt.Errorf("%w: plugin #%d is nil", ErrConfig, i)
		}
		id := p.PluginID()
		if id == "" {
			return fmt.Errorf("%w: plugin #%d has no id", ErrConfig, i)
		}
		if seen[id] {
			return fmt.Errorf("%w: plugin %q is installed twice", ErrConfig, id)
		}
		seen[id] = true
	}
	return nil
}

// plugins returns the agent's plugins: Options.Plugins, then the
// standard batch plugin when BatchTool asks for it and no plugin of that
// id is installed already.
func (a *Agent) pluginList() []PluginFactory {
	ps := slices.Clone(a.plugins)
	if a.batchTool && !slices.ContainsFunc(ps, func(p PluginFactory) bool { return p.PluginID() == StandardBatchPluginID }) {
		ps = append(ps, StandardBatchPlugin())
	}
	return ps
}

// withPlugins returns sets with every plugin's orchestrating toolsets
// appended, built with the agent's PluginContext.
func (a *Agent) withPlugins(sets []toolset.Toolset) []toolset.Toolset {
	ps := a.pluginList()
	if len(ps) == 0 {
		return sets
	}
	pc := PluginContext{Sequential: a.sequential, MaxConcurrency: a.maxConcurrency}
	if a.intents != nil {
		pc.DrainChildren = callIntents{a.intents}.drainChildren
	}
	for _, p := range ps {
		for _, t := range p.PluginSpec().orchestrating {
			if ts := t.Toolset(pc); ts != nil {
				sets = append(sets, ts)
			}
		}
	}
	return sets
}
