package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolsearch"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// DefaultMaxResults is how many index entries a search keeps when the
// toolset sets no limit (a namespace entry then expands to all its tools).
const DefaultMaxResults = 5

// item is one indexed tool.
type item struct {
	tool      tool.Tool
	def       tool.Definition
	namespace string // the member's id; "" for a loose tool
	toolset   string // the member's name
}

// namespaceInfo is what a snapshot knows of one member toolset with an id.
type namespaceInfo struct {
	id          string
	description string
	tools       []string
	unavailable bool // its Tools failed
}

// inventory is one snapshot of the members' tools and their index.
type inventory struct {
	items  []item
	byName map[string]int
	spaces []namespaceInfo // in member order
	loose  int
	index  *toolsearch.Index
}

// read reads the members' tools for rc (nil: outside a run) and indexes
// them; the surface's own names are left out. A member whose Tools fails
// is reported unavailable rather than failing the catalogue.
func read(members []toolset.Toolset, exclude []string, descriptions map[string]string, rc *tool.RunContext) *inventory {
	inv := &inventory{byName: map[string]int{}}
	spaceAt := map[string]int{}
	for _, ts := range members {
		id := ts.ID()
		tools, err := ts.Tools(rc)
		if id != "" {
			if _, seen := spaceAt[id]; !seen {
				desc := descriptions[id]
				if desc == "" {
					desc = "Toolset: " + id
				}
				spaceAt[id] = len(inv.spaces)
				inv.spaces = append(inv.spaces, namespaceInfo{id: id, description: desc})
			}
			if err != nil {
				inv.spaces[spaceAt[id]].unavailable = true
			}
		}
		if err != nil {
			continue
		}
		d := ts.Defaults()
		for _, t := range tools {
			if t == nil {
				continue
			}
			def := t.Definition()
			if slices.Contains(exclude, def.Name) {
				continue
			}
			if _, dup := inv.byName[def.Name]; !dup {
				inv.byName[def.Name] = len(inv.items)
			}
			inv.items = append(inv.items, item{tool: withDefaults(t, d), def: def, namespace: id, toolset: ts.Name()})
			if id == "" {
				inv.loose++
			} else {
				ns := &inv.spaces[spaceAt[id]]
				ns.tools = append(ns.tools, def.Name)
			}
		}
	}
	entries := make([]toolsearch.Entry, 0, len(inv.items)+len(inv.spaces))
	for _, it := range inv.items {
		entries = append(entries, toolsearch.Entry{Name: it.def.Name, Namespace: it.namespace, Description: it.def.Description, Parameters: it.def.Parameters})
	}
	for _, ns := range inv.spaces {
		if len(ns.tools) > 0 {
			entries = append(entries, toolsearch.Entry{Name: ns.id, Namespace: ns.id, Description: ns.description, IsNamespace: true})
		}
	}
	inv.index = toolsearch.New(entries)
	return inv
}

func (inv *inventory) item(name string) (item, bool) {
	i, ok := inv.byName[name]
	if !ok {
		return item{}, false
	}
	return inv.items[i], true
}

func (inv *inventory) space(id string) (namespaceInfo, bool) {
	for _, ns := range inv.spaces {
		if ns.id == id {
			return ns, true
		}
	}
	return namespaceInfo{}, false
}

// search returns the tools matching query (a matched namespace brings all
// its tools), sorted by name, and the matched namespaces, sorted.
func (inv *inventory) search(query string, maxResults int) (tools []item, namespaces []string) {
	seen := map[string]bool{}
	add := func(name string) {
		if it, ok := inv.item(name); ok && !seen[name] {
			seen[name] = true
			tools = append(tools, it)
		}
	}
	for _, h := range inv.index.Search(query, maxResults) {
		if !h.IsNamespace {
			add(h.Name)
			continue
		}
		namespaces = append(namespaces, h.Name)
		ns, _ := inv.space(h.Name)
		for _, n := range ns.tools {
			add(n)
		}
	}
	sort.Slice(tools, func(a, b int) bool { return tools[a].def.Name < tools[b].def.Name })
	sort.Strings(namespaces)
	return tools, namespaces
}

// available reports whether the tool would be offered for rc, as
// Registry.DefinitionsFor decides: its availability check, the active
// tags and its prepare function. Checks that must ask a host outside a
// run keep the tool (see tool.RunContext.Ctx).
func (it item) available(rc *tool.RunContext) bool {
	cfg := tool.ConfigOf(it.tool)
	if cfg.Available != nil && !cfg.Available(rc) {
		return false
	}
	if tool.HiddenByActiveTags(it.def.Metadata, rc.ActiveTags) {
		return false
	}
	if cfg.Prepare != nil {
		_, ok := cfg.Prepare(rc, it.def.Clone())
		return ok
	}
	return true
}

// described is the tool as search results show it.
func (it item) described() map[string]any {
	var ns any
	if it.namespace != "" {
		ns = it.namespace
	}
	return map[string]any{
		"name": it.def.Name, "description": it.def.Description, "namespace": ns,
		"toolset": it.toolset, "parameters": it.def.Parameters,
	}
}

func (it item) parametersJSON() string {
	b, err := json.Marshal(it.def.Parameters)
	if err != nil {
		return fmt.Sprintf("%q", err.Error())
	}
	return string(b)
}

// member is an indexed tool as a catalogue registers it: its own
// definition and Config, with the member toolset's defaults folded in
// (the catalogue registers it under its own name and defaults, and the
// member's must still win over those).
type member struct {
	inner tool.Tool
	def   tool.Definition
	cfg   tool.Config
}

func withDefaults(t tool.Tool, d toolset.Defaults) tool.Tool {
	if d.IsZero() {
		return t
	}
	m := &member{inner: t, def: t.Definition(), cfg: *tool.ConfigOf(t)}
	m.fold(d)
	return m
}

func (m *member) fold(d toolset.Defaults) {
	if m.cfg.MaxRetries == nil && d.MaxRetries != nil {
		n := *d.MaxRetries
		m.cfg.MaxRetries = &n
	}
	if m.cfg.Timeout <= 0 && d.Timeout > 0 {
		m.cfg.Timeout = d.Timeout
	}
}

func (m *member) Definition() tool.Definition { return m.def.Clone() }
func (m *member) Call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	return m.inner.Call(ctx, tc, args)
}
func (m *member) ToolConfig() *tool.Config { return &m.cfg }
func (m *member) Unwrap() tool.Tool        { return m.inner }
func (m *member) Err() error {
	if f, ok := m.inner.(interface{ Err() error }); ok {
		return f.Err()
	}
	return nil
}
