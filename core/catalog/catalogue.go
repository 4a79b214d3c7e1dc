package catalog

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// ErrUnknownNamespace is returned by PreloadNamespace for a namespace the
// catalogue does not index.
var ErrUnknownNamespace = errors.New("catalog: unknown namespace")

// catalogue is what Search and Proxy share: the members, the inventory
// snapshot, the search and the host APIs on the loaded state.
type catalogue struct {
	name, id     string
	searchName   string
	surface      []string // the names of the catalogue's own tools
	maxResults   int
	members      []toolset.Toolset
	descriptions map[string]string

	mu      sync.Mutex
	inv     *inventory
	version int64
	// readFor is the run (and, with per-step members, the step) the
	// inventory was read for; see snapshotFor.
	readFor string
}

// Unwrap returns the members, so that the agent finds the lifecycles and
// per-step inventories inside a catalogue (toolset.Walk): a catalogue
// over an MCP server starts the server when a run needs the catalogue and
// stops it when the run ends, like the server's toolset alone would.
func (c *catalogue) Unwrap() []toolset.Toolset { return c.members }

// snapshot returns the inventory, reading it on first use.
func (c *catalogue) snapshot() *inventory { return c.snapshotFor(nil) }

// snapshotFor returns the inventory for rc. Members whose inventory lives
// with a run (a lifecycle: the agent entered them for this run; or per
// step) are read again for each run, or each step, that asks; others are
// read once and kept until a refresh.
func (c *catalogue) snapshotFor(rc *tool.RunContext) *inventory {
	key := ""
	if rc != nil && rc.RunID != "" {
		for _, m := range c.members {
			if toolset.PerStep(m) {
				key = fmt.Sprintf("%s/%d", rc.RunID, rc.RunStep)
				break
			}
			if toolset.Managed(m) {
				key = rc.RunID
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inv == nil || (key != "" && key != c.readFor) {
		c.inv = read(c.members, c.surface, c.descriptions, rc)
		c.version++
		c.readFor = key
	}
	return c.inv
}

// reread replaces the inventory with a fresh read of the members.
func (c *catalogue) reread() (*inventory, int64) {
	inv := read(c.members, c.surface, c.descriptions, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inv = inv
	c.version++
	return inv, c.version
}

// InventoryVersion counts the reads of the inventory: it changes on every
// refresh.
func (c *catalogue) InventoryVersion() int64 {
	c.snapshot()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// LoadResult is what a search or a preload loaded.
type LoadResult struct {
	LoadedTools      []string `json:"loaded_tools"`
	LoadedNamespaces []string `json:"loaded_namespaces"`
}

// RefreshResult is what a refresh or an invalidation changed in the
// loaded state; Report is the catalogue after a refresh (nil for an
// invalidation).
type RefreshResult struct {
	Report             *Report  `json:"report,omitempty"`
	Reason             string   `json:"reason,omitempty"`
	RemovedTools       []string `json:"removed_loaded_tools"`
	RemovedNamespaces  []string `json:"removed_loaded_namespaces"`
	RetainedTools      []string `json:"retained_loaded_tools"`
	RetainedNamespaces []string `json:"retained_loaded_namespaces"`
}

// search runs a model's query: it publishes the events, records the
// matches as loaded and returns them. A nil handle (the tool was not
// given the tool_search capability) records and publishes nothing.
func (c *catalogue) search(h *agentctx.ToolSearchHandle, query string) (tools []item, namespaces []string) {
	inv := c.snapshot()
	if h != nil {
		h.Publish(EventInitialized, c.report(inv, nil).payload())
	}
	tools, namespaces = inv.search(query, c.maxResults)
	if h == nil {
		return tools, namespaces
	}
	if len(tools) == 0 && len(namespaces) == 0 {
		h.Publish(EventNoMatch, map[string]any{
			"search_tool_name": c.searchName, "query": query, "error_kind": "no_match", "message": noMatch(query),
		})
		return nil, nil
	}
	names := make([]string, len(tools))
	for i, it := range tools {
		names[i] = it.def.Name
	}
	h.Record(names, namespaces)
	h.Publish(EventLoaded, map[string]any{"loaded_tools": names, "loaded_namespaces": nonNil(namespaces)})
	return tools, namespaces
}

// failed publishes a rejected query.
func (c *catalogue) failed(h *agentctx.ToolSearchHandle, query string) {
	if h != nil {
		h.Publish(EventFailed, map[string]any{
			"search_tool_name": c.searchName, "query": query, "error_kind": "empty_query", "message": queryRequired,
		})
	}
}

func noMatch(query string) string {
	return fmt.Sprintf("No tools found for query %q. Try a different keyword, action, namespace, or parameter name.", query)
}

// InitializationReport describes the inventory without checking any
// tool's availability.
func (c *catalogue) InitializationReport() Report { return c.report(c.snapshot(), nil) }

// RefreshReport describes the inventory with each tool's availability
// checked for rc (nil: a context-free check).
func (c *catalogue) RefreshReport(rc *tool.RunContext) Report {
	if rc == nil {
		rc = &tool.RunContext{}
	}
	return c.report(c.snapshot(), rc)
}

// PublishInitializationReport publishes InitializationReport as
// tool_search_initialized on actx.
func (c *catalogue) PublishInitializationReport(actx *agentctx.Context) Report {
	r := c.InitializationReport()
	actx.Publish(EventInitialized, r.payload())
	return r
}

// PublishRefreshReport publishes RefreshReport (checked against actx) as
// tool_search_refreshed on actx, without changing the loaded state.
func (c *catalogue) PublishRefreshReport(actx *agentctx.Context) Report {
	r := c.RefreshReport(&tool.RunContext{Agent: actx})
	p := r.payload()
	tools, spaces := actx.ToolSearchLoaded()
	p["removed_loaded_tools"], p["removed_loaded_namespaces"] = []string{}, []string{}
	p["retained_loaded_tools"], p["retained_loaded_namespaces"] = nonNil(tools), nonNil(spaces)
	actx.Publish(EventRefreshed, p)
	return r
}

// PreloadNamespace loads a namespace and all its tools, as a model's
// search matching it would, and publishes tool_search_loaded: for hosts
// that know the model will need it. An id the catalogue does not index
// is an error wrapping ErrUnknownNamespace, and nothing is recorded.
func (c *catalogue) PreloadNamespace(actx *agentctx.Context, namespace string) (LoadResult, error) {
	ns, ok := c.snapshot().space(namespace)
	if !ok {
		return LoadResult{}, fmt.Errorf("%w %q", ErrUnknownNamespace, namespace)
	}
	res := LoadResult{LoadedTools: append([]string{}, ns.tools...), LoadedNamespaces: []string{namespace}}
	slices.Sort(res.LoadedTools)
	actx.RecordToolSearchLoaded(res.LoadedTools, res.LoadedNamespaces)
	actx.Publish(EventLoaded, map[string]any{"loaded_tools": res.LoadedTools, "loaded_namespaces": res.LoadedNamespaces})
	return res, nil
}

// RefreshLoadedState re-reads the inventory and prunes the loaded state
// of actx: tools the catalogue no longer has or that are now unavailable
// (see RefreshReport), namespaces it no longer has or that have no tools.
// As in the reference, a loaded name the catalogue does not have is
// stale whoever loaded it; InvalidateLoadedState, by contrast, forgets only
// the catalogue's own. It publishes tool_search_refreshed.
func (c *catalogue) RefreshLoadedState(actx *agentctx.Context) RefreshResult {
	return c.refresh(actx, nil)
}

func (c *catalogue) refresh(actx *agentctx.Context, extra map[string]any) RefreshResult {
	inv, _ := c.reread()
	rc := &tool.RunContext{Agent: actx}
	keepTool := func(n string) bool {
		it, ok := inv.item(n)
		return ok && it.available(rc)
	}
	keepSpace := func(n string) bool {
		ns, ok := inv.space(n)
		return ok && !ns.unavailable && len(ns.tools) > 0
	}
	// The availability checks run before the context's lock is taken:
	// RetainToolSearchLoaded's predicates must not use the context.
	tools, spaces := actx.ToolSearchLoaded()
	keptTools, keptSpaces := map[string]bool{}, map[string]bool{}
	for _, n := range tools {
		keptTools[n] = keepTool(n)
	}
	for _, n := range spaces {
		keptSpaces[n] = keepSpace(n)
	}
	removedTools, removedSpaces := actx.RetainToolSearchLoaded(
		func(n string) bool { k, seen := keptTools[n]; return !seen || k },
		func(n string) bool { k, seen := keptSpaces[n]; return !seen || k })
	report := c.report(inv, rc)
	retTools, retSpaces := actx.ToolSearchLoaded()
	res := RefreshResult{Report: &report, RemovedTools: nonNil(removedTools), RemovedNamespaces: nonNil(removedSpaces),
		RetainedTools: nonNil(retTools), RetainedNamespaces: nonNil(retSpaces)}
	p := report.payload()
	p["removed_loaded_tools"], p["removed_loaded_namespaces"] = res.RemovedTools, res.RemovedNamespaces
	p["retained_loaded_tools"], p["retained_loaded_namespaces"] = res.RetainedTools, res.RetainedNamespaces
	for k, v := range extra {
		p[k] = v
	}
	actx.Publish(EventRefreshed, p)
	return res
}

// InvalidateLoadedState forgets every loaded tool and namespace of this
// catalogue in actx (another catalogue's stay) and publishes
// tool_search_invalidated with reason: for hosts whose inventory changed
// in a way a refresh cannot judge.
func (c *catalogue) InvalidateLoadedState(actx *agentctx.Context, reason string) RefreshResult {
	inv := c.snapshot()
	removedTools, removedSpaces := actx.RetainToolSearchLoaded(
		func(n string) bool { _, ours := inv.byName[n]; return !ours },
		func(n string) bool { _, ours := inv.space(n); return !ours })
	retTools, retSpaces := actx.ToolSearchLoaded()
	res := RefreshResult{Reason: reason, RemovedTools: nonNil(removedTools), RemovedNamespaces: nonNil(removedSpaces),
		RetainedTools: nonNil(retTools), RetainedNamespaces: nonNil(retSpaces)}
	actx.Publish(EventInvalidated, map[string]any{
		"reason": reason, "removed_loaded_tools": res.RemovedTools, "removed_loaded_namespaces": res.RemovedNamespaces,
		"retained_loaded_tools": res.RetainedTools, "retained_loaded_namespaces": res.RetainedNamespaces,
	})
	return res
}

// RefreshLoadedStateIfDue refreshes when b says one is due at nowMS
// (see RefreshBinding) and returns the binding to keep. The
// tool_search_refreshed event then also carries refresh_scheduled,
// refresh_reason, refresh_ms and inventory_version.
func (c *catalogue) RefreshLoadedStateIfDue(actx *agentctx.Context, b RefreshBinding, nowMS int64) (RefreshResult, RefreshBinding, bool) {
	reason, due := b.Due(nowMS)
	if !due {
		return RefreshResult{}, b, false
	}
	version := b.Version()
	res := c.refresh(actx, map[string]any{
		"refresh_scheduled": true, "refresh_reason": reason, "refresh_ms": nowMS, "inventory_version": version,
	})
	res.Reason = reason
	return res, b.Refreshed(nowMS), true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
