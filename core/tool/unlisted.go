package tool

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
)

// Unlisted wraps t so that a registry registers it unlisted: the tool is
// registered (its schema, hooks, validators, timeout, retries and approval
// all apply) but no listing shows it (Definitions, DefinitionsFor, Names,
// Tool, Entry) and a model's call naming it gets not_found. The only way
// to call it is Context.Dispatch, from another tool of the same run: the
// catalogue tools of a proxy (core/catalog), which keep large inventories
// out of the model's tool list without bypassing the registry.
//
// Unlisted tools survive Clone, Select and Grant: they are selected by the
// tool that dispatches to them, which a grant or a selection already
// decides on. The wrapper forwards the tool's Config, construction error
// and Call, and Unwrap returns t. Unlisted panics if t is nil.
func Unlisted(t Tool) Tool {
	if t == nil {
		panic("tool: Unlisted of a nil tool")
	}
	return &unlisted{t}
}

type unlisted struct{ inner Tool }

func (u *unlisted) Definition() Definition { return u.inner.Definition() }
func (u *unlisted) Call(ctx context.Context, tc *Context, args json.RawMessage) (Result, error) {
	return u.inner.Call(ctx, tc, args)
}
func (u *unlisted) ToolConfig() *Config { return ConfigOf(u.inner) }
func (u *unlisted) Unwrap() Tool        { return u.inner }
func (u *unlisted) Err() error {
	if f, ok := u.inner.(interface{ Err() error }); ok {
		return f.Err()
	}
	return nil
}

// IsUnlisted reports whether t, or a tool it wraps (through Unwrap
// methods, as the toolset combinators have), was made by Unlisted: a
// combinator that renames or prefixes an unlisted tool keeps it unlisted.
func IsUnlisted(t Tool) bool {
	for t != nil {
		if _, ok := t.(*unlisted); ok {
			return true
		}
		u, ok := t.(interface{ Unwrap() Tool })
		if !ok {
			return false
		}
		t = u.Unwrap()
	}
	return false
}

// UnlistedNames returns the names of the unlisted tools, sorted.
func (r *Registry) UnlistedNames() []string { return r.unlistedNames() }

func (r *Registry) unlistedNames() []string {
	names := make([]string, 0, len(r.unlisted))
	for n := range r.unlisted {
		names = append(names, n)
	}
	sort.Strings(names)
	return slices.Clip(names)
}

// taken reports whether name is registered, listed or not: the two share
// one namespace, so a dispatch can never be ambiguous.
func (r *Registry) taken(name string) bool {
	if _, ok := r.entries[name]; ok {
		return true
	}
	_, ok := r.unlisted[name]
	return ok
}

func (r *Registry) addUnlisted(e *entry) {
	if r.unlisted == nil {
		r.unlisted = map[string]*entry{}
	}
	r.unlisted[e.def.Name] = e
}
