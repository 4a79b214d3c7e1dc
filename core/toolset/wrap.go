package toolset

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/starweaver-go/starweaver/core/tool"
)

// wrapper presents inner under another Definition. It forwards the inner
// tool's Config (or uses cfg when set), its construction error and, unless
// call is set, its Call.
type wrapper struct {
	inner tool.Tool
	def   tool.Definition
	call  tool.Handler
	cfg   *tool.Config
}

// wrap returns a wrapper of t presenting def.
func wrap(t tool.Tool, def tool.Definition) *wrapper {
	return &wrapper{inner: t, def: def}
}

// Definition returns the wrapper's own definition; the metadata map is a
// copy the caller may change.
func (w *wrapper) Definition() tool.Definition { return w.def.Clone() }

// Call runs the wrapper's call, or the inner tool's when it has none.
func (w *wrapper) Call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	if w.call != nil {
		return w.call(ctx, tc, args)
	}
	return w.inner.Call(ctx, tc, args)
}

// ToolConfig forwards the inner tool's Config, so that timeouts, retries,
// validators, availability, prepare and hooks survive wrapping.
func (w *wrapper) ToolConfig() *tool.Config {
	if w.cfg != nil {
		return w.cfg
	}
	return tool.ConfigOf(w.inner)
}

// Err forwards the inner tool's construction error, which the registry
// reports at registration.
func (w *wrapper) Err() error {
	if f, ok := w.inner.(interface{ Err() error }); ok {
		return f.Err()
	}
	return nil
}

// Unwrap returns the wrapped tool.
func (w *wrapper) Unwrap() tool.Tool { return w.inner }

// withMetadata returns a copy of d whose metadata is a fresh map holding
// d's entries and then kv's.
func withMetadata(d tool.Definition, kv map[string]any) tool.Definition {
	md := make(map[string]any, len(d.Metadata)+len(kv))
	maps.Copy(md, d.Metadata)
	maps.Copy(md, kv)
	d.Metadata = md
	return d
}

// derived is a toolset computed from one inner toolset. It forwards the
// inner defaults, and the inner instructions unless instructions is set.
type derived struct {
	inner        Toolset
	name, id     string
	tools        func(rc *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error)
	instructions func(rc *tool.RunContext) []Instruction
}

func (d *derived) Name() string { return d.name }
func (d *derived) ID() string   { return d.id }

func (d *derived) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	tools, err := d.inner.Tools(rc)
	if err != nil {
		return nil, err
	}
	return d.tools(rc, tools)
}

func (d *derived) Instructions(rc *tool.RunContext) []Instruction {
	if d.instructions != nil {
		return d.instructions(rc)
	}
	return d.inner.Instructions(rc)
}

func (d *derived) Defaults() Defaults { return d.inner.Defaults() }

// Unwrap returns the toolset d is computed from (see [Walk]).
func (d *derived) Unwrap() Toolset { return d.inner }

// suffixID returns id+suffix, or "" when id is "": a toolset without an id
// stays without one.
func suffixID(id, suffix string) string {
	if id == "" {
		return ""
	}
	return id + suffix
}

func mustToolset(ts Toolset, combinator string) {
	if ts == nil {
		panic("toolset: " + combinator + " of a nil toolset")
	}
}

// checkUnique reports the first name held twice by tools as a duplicate
// inside the toolset named owner.
func checkUnique(owner string, tools []tool.Tool) error {
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		n := t.Definition().Name
		if seen[n] {
			return &DuplicateError{Tool: n, First: owner, Second: owner}
		}
		seen[n] = true
	}
	return nil
}
