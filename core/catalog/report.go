package catalog

import "github.com/starweaver-go/starweaver/core/tool"

// Namespace statuses in a Report.
const (
	StatusConnected   = "connected"
	StatusEmpty       = "empty"
	StatusUnavailable = "unavailable"
)

// Report describes a catalogue's inventory: what hosts inspect and what
// tool_search_initialized and tool_search_refreshed carry.
type Report struct {
	ToolsetName     string            `json:"toolset_name"`
	SearchToolName  string            `json:"search_tool_name"`
	TotalTools      int               `json:"total_tools"`
	TotalNamespaces int               `json:"total_namespaces"`
	LooseTools      int               `json:"loose_tools"`
	Namespaces      []NamespaceReport `json:"namespaces"`
	// AvailableTools and UnavailableTools count the tools whose own
	// availability check passes or fails; without a check
	// (AvailabilityChecked false) every tool counts as available.
	AvailableTools      int  `json:"available_tools"`
	UnavailableTools    int  `json:"unavailable_tools"`
	AvailabilityChecked bool `json:"availability_checked"`
	MaxResults          int  `json:"max_results"`
}

// NamespaceReport describes one namespace (member toolset with an id).
type NamespaceReport struct {
	Namespace        string   `json:"namespace"`
	Status           string   `json:"status"`
	Tools            []string `json:"tools"`
	TotalTools       int      `json:"total_tools"`
	AvailableTools   int      `json:"available_tools"`
	UnavailableTools int      `json:"unavailable_tools"`
}

// report describes inv; a non-nil rc checks each tool's availability.
func (c *catalogue) report(inv *inventory, rc *tool.RunContext) Report {
	r := Report{
		ToolsetName: c.name, SearchToolName: c.searchName, TotalTools: len(inv.items),
		TotalNamespaces: len(inv.spaces), LooseTools: inv.loose, Namespaces: []NamespaceReport{},
		AvailabilityChecked: rc != nil, MaxResults: c.maxResults,
	}
	for _, it := range inv.items {
		if rc == nil || it.available(rc) {
			r.AvailableTools++
		} else {
			r.UnavailableTools++
		}
	}
	for _, ns := range inv.spaces {
		nr := NamespaceReport{Namespace: ns.id, Status: StatusConnected, Tools: append([]string{}, ns.tools...), TotalTools: len(ns.tools)}
		switch {
		case ns.unavailable:
			nr.Status = StatusUnavailable
		case len(ns.tools) == 0:
			nr.Status = StatusEmpty
		}
		for _, n := range ns.tools {
			if it, ok := inv.item(n); ok && (rc == nil || it.available(rc)) {
				nr.AvailableTools++
			} else {
				nr.UnavailableTools++
			}
		}
		r.Namespaces = append(r.Namespaces, nr)
	}
	return r
}

// payload is the report as an event payload (its JSON object).
func (r Report) payload() map[string]any {
	spaces := make([]any, len(r.Namespaces))
	for i, ns := range r.Namespaces {
		spaces[i] = map[string]any{
			"namespace": ns.Namespace, "status": ns.Status, "tools": ns.Tools, "total_tools": ns.TotalTools,
			"available_tools": ns.AvailableTools, "unavailable_tools": ns.UnavailableTools,
		}
	}
	return map[string]any{
		"toolset_name": r.ToolsetName, "search_tool_name": r.SearchToolName, "total_tools": r.TotalTools,
		"total_namespaces": r.TotalNamespaces, "loose_tools": r.LooseTools, "namespaces": spaces,
		"available_tools": r.AvailableTools, "unavailable_tools": r.UnavailableTools,
		"availability_checked": r.AvailabilityChecked, "max_results": r.MaxResults,
	}
}
