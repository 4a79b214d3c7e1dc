// Package catalog provides the toolsets that put a large or changing
// catalogue of tools in front of a model without listing every tool in
// every request: [Search] (tool_search, which loads matching tools for
// the next model turn) and [Proxy] (search_tools and call_tool, a fixed
// two-tool surface in front of hidden tools).
//
// Both are related to [toolset.Combined]: they are built over member
// toolsets, whose tools they index with core/toolsearch. A member's
// namespace is its toolset id (a member without one contributes "loose"
// tools), its tools inherit the member's defaults, and a namespace is
// described by the text given to Options.NamespaceDescriptions or by
// "Toolset: {id}".
//
//   - Search registers every indexed tool, wrapped so that it is
//     available only once loaded: its name or its namespace is in the
//     session's tool-search loaded state (agentctx). tool_search records
//     what it matched there, so those tools are listed from the next
//     request on, and the loaded state survives a session's export and
//     restore with the rest of the agent context.
//   - Proxy registers the indexed tools unlisted (tool.Unlisted): a model
//     never sees them among its tools and a direct call naming one is not
//     found. call_tool dispatches through the run's registry
//     (tool.Context.Dispatch), so argument validation, hooks, timeouts,
//     internal retries, approval and deferral apply to a proxied call as
//     to any other; the reference implementation called the tool
//     directly and skipped all of them.
//
// Both publish the reference's context events (tool_search_initialized,
// _loaded, _no_match, _failed, _refreshed, _invalidated) and give hosts
// the same APIs: PreloadNamespace, RefreshLoadedState,
// InvalidateLoadedState, InitializationReport, RefreshReport and
// RefreshLoadedStateIfDue with a deterministic [RefreshBinding].
//
// The inventory is read (context-free, Tools(nil)) when first needed and
// again on each refresh; between refreshes it is a snapshot, so the tools
// registered for a run and the ones searched agree. Toolsets in this
// package are safe for concurrent use.
package catalog
