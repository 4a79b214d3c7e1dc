package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// SearchToolName is the name of the Search toolset and its tool.
const SearchToolName = "tool_search"

// Search is the tool_search toolset (see the package comment): the model
// first sees only tool_search{query}; the tools it matches are listed
// from the next request on. Build it with NewSearch.
type Search struct {
	*catalogue
}

var _ toolset.Toolset = (*Search)(nil)

// NewSearch returns a tool_search toolset over members, configured by o
// (the zero Options for the defaults).
func NewSearch(members []toolset.Toolset, o Options) *Search {
	c := &catalogue{name: SearchToolName, id: SearchToolName, searchName: SearchToolName,
		surface: []string{SearchToolName}, maxResults: DefaultMaxResults, members: members}
	o.apply(c)
	return &Search{c}
}

// Name returns "tool_search".
func (s *Search) Name() string { return s.name }

// ID returns the stable id ("tool_search" unless Options.ID).
func (s *Search) ID() string { return s.id }

// Defaults gives the catalogue's tools three retries, as the reference
// does; members' own defaults still win for their tools.
func (s *Search) Defaults() toolset.Defaults {
	n := 3
	return toolset.Defaults{MaxRetries: &n}
}

// Instructions explain tool_search and list the namespaces.
func (s *Search) Instructions(rc *tool.RunContext) []toolset.Instruction {
	inv := s.snapshotFor(rc)
	var b strings.Builder
	b.WriteString("Use tool_search to find tools by keyword, action, namespace or parameter name. " +
		"Matching tools are loaded and become callable from the next model turn.")
	if len(inv.spaces) > 0 {
		b.WriteString("\nNamespaces:")
		for _, ns := range inv.spaces {
			fmt.Fprintf(&b, "\n- %s (%d tools)", ns.id, len(ns.tools))
		}
	}
	return []toolset.Instruction{{Group: "tool-search", Content: b.String()}}
}

// Tools returns tool_search and every indexed tool, each available only
// once loaded in the session's agent context (and when its own
// availability check passes).
func (s *Search) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	inv := s.snapshotFor(rc)
	out := make([]tool.Tool, 0, len(inv.items)+1)
	out = append(out, s.searchTool())
	for _, it := range inv.items {
		out = append(out, loaded(it))
	}
	return out, nil
}

// loaded wraps an indexed tool so that it is listed only when its name or
// namespace is loaded (tool.Config.Listed): until then the model is not
// offered it, a call naming it is refused, and it is not reported
// unavailable step after step (the reference reports every unloaded tool
// in tools_unavailable, which also fails runs under FailOnUnavailable).
// Its metadata says so (tool_search_direct, tool_search_namespace).
func loaded(it item) tool.Tool {
	m := &member{inner: it.tool, def: it.def.Clone(), cfg: *tool.ConfigOf(it.tool)}
	if m.def.Metadata == nil {
		m.def.Metadata = map[string]any{}
	}
	m.def.Metadata["tool_search_direct"] = true
	if it.namespace != "" {
		m.def.Metadata["tool_search_namespace"] = it.namespace
	}
	own, name, ns := m.cfg.Listed, it.def.Name, it.namespace
	m.cfg.Listed = func(rc *tool.RunContext) bool {
		return rc != nil && rc.Agent.IsToolSearchLoaded(name, ns) && (own == nil || own(rc))
	}
	return m
}

var searchSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{"type": "string", "description": "Keywords: an action, an object, a namespace or a parameter name."},
	},
	"required": []any{"query"},
}

func (s *Search) searchTool() tool.Tool {
	return tool.New(SearchToolName, "Search for available tools and load matching tools for the next model turn.", searchSchema,
		func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			h := tc.Handles.ToolSearch
			if h == nil {
				return tool.Result{}, tool.UserError("%s needs the %s context capability", SearchToolName, agentctx.CapabilityToolSearch)
			}
			query := queryOf(args)
			if query == "" {
				s.failed(h, query)
				return tool.JSON(map[string]any{"error": queryRequired, "loaded_tools": []any{}, "loaded_namespaces": []string{}}), nil
			}
			tools, spaces := s.search(h, query)
			if len(tools) == 0 && len(spaces) == 0 {
				return tool.JSON(map[string]any{"query": query, "message": noMatch(query), "loaded_tools": []any{}, "loaded_namespaces": []string{}}), nil
			}
			described := make([]any, len(tools))
			for i, it := range tools {
				described[i] = it.described()
			}
			return tool.JSON(map[string]any{
				"query": query, "message": fmt.Sprintf("Loaded %d tool(s) for the next model turn.", len(tools)),
				"loaded_tools": described, "loaded_namespaces": nonNil(spaces),
			}), nil
		}).WithDependencies(tool.Dependencies{Profile: tool.ProfileFiltered, ContextCapabilities: []string{agentctx.CapabilityToolSearch}})
}

// queryOf reads the query argument, trimmed; anything unreadable is "".
func queryOf(args json.RawMessage) string {
	var in struct {
		Query any `json:"query"`
	}
	_ = json.Unmarshal(args, &in)
	q, _ := in.Query.(string)
	return strings.TrimSpace(q)
}
