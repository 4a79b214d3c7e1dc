package catalog

import "github.com/starweaver-go/starweaver/core/refresh"

// The context events a catalogue publishes (agentctx.Context.Publish); a
// running agent delivers them to its host as custom events of that kind.
const (
	// EventInitialized carries the Report, published on every search.
	EventInitialized = "tool_search_initialized"
	// EventLoaded carries loaded_tools and loaded_namespaces.
	EventLoaded = "tool_search_loaded"
	// EventNoMatch carries search_tool_name, query, error_kind "no_match"
	// and message.
	EventNoMatch = "tool_search_no_match"
	// EventFailed carries search_tool_name, query, error_kind
	// "empty_query" and message.
	EventFailed = "tool_search_failed"
	// EventRefreshed carries the checked Report and the removed and
	// retained loaded tools and namespaces (plus refresh_scheduled,
	// refresh_reason, refresh_ms and inventory_version for a refresh a
	// RefreshBinding scheduled).
	EventRefreshed = "tool_search_refreshed"
	// EventInvalidated carries reason and the removed and retained loaded
	// tools and namespaces.
	EventInvalidated = "tool_search_invalidated"
)

// The reasons a RefreshBinding gives for a due refresh.
const (
	ReasonInventoryChanged = refresh.ReasonInventoryChanged
	ReasonIntervalElapsed  = refresh.ReasonIntervalElapsed
)

// Messages shared with the reference.
const (
	queryRequired = "Parameter 'query' is required."
	nameRequired  = "Parameter 'name' is required."
)
