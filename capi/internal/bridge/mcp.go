package bridge

import (
	"github.com/starweaver-go/starweaver/core/mcp"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// mcpSpec is the "mcp" object of a toolset spec of kind "mcp": a toolset
// whose tools are those of an MCP server (core/mcp). Every default lives
// in core/mcp; a field left out keeps it.
type mcpSpec struct {
	Transport           mcpTransportSpec `json:"transport"`
	ToolPrefix          string           `json:"tool_prefix"`
	CacheTools          *bool            `json:"cache_tools"`
	ReadTimeoutMS       *int64           `json:"read_timeout_ms"`
	InitTimeoutMS       *int64           `json:"init_timeout_ms"`
	IncludeInstructions bool             `json:"include_instructions"`
	// Optional lets runs go on without a server that cannot start
	// (mcp.Options.Optional); without it such a run fails.
	Optional bool `json:"optional"`
}

// mcpTransportSpec is a transport: {"kind":"stdio","command","args"?,
// "env"?,"cwd"?} or {"kind":"streamable_http","url","headers"?}.
type mcpTransportSpec struct {
	Kind    string            `json:"kind"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// mcpToolset builds a toolset spec of kind "mcp". The spec's id (its
// name when it has none) is the toolset's id; max_retries and timeout_ms
// are the tools' defaults.
func mcpToolset(s toolsetSpec) (toolset.Toolset, error) {
	if s.MCP == nil {
		return nil, specError("toolset %q: kind \"mcp\" needs an \"mcp\" object", s.Name)
	}
	if len(s.Tools) > 0 || len(s.Instructions) > 0 {
		return nil, specError("toolset %q: an MCP toolset takes its tools and instructions from the server", s.Name)
	}
	spec := *s.MCP
	id := s.ID
	if id == "" {
		id = s.Name
	}
	tr := spec.Transport
	t, err := mcp.CheckTransport(id, mcp.Transport{Kind: tr.Kind, Command: tr.Command, Args: tr.Args, Env: tr.Env, Dir: tr.Cwd, URL: tr.URL, Headers: tr.Headers})
	if err != nil {
		return nil, specError("%v", err)
	}
	opts := mcp.Options{ToolPrefix: spec.ToolPrefix, IncludeInstructions: spec.IncludeInstructions, Optional: spec.Optional}
	if spec.CacheTools != nil {
		opts.NoCache = !*spec.CacheTools
	}
	timeouts := mcp.Timeouts{Read: optionalMillis(spec.ReadTimeoutMS), Init: optionalMillis(spec.InitTimeoutMS), Call: optionalMillis(s.TimeoutMS)}
	if err := timeouts.Apply(id, &opts); err != nil {
		return nil, specError("%v", err)
	}
	if s.MaxRetries != nil {
		n := *s.MaxRetries
		opts.Defaults.MaxRetries = &n
	}
	ts := mcp.New(id, t, opts)
	if err := ts.Err(); err != nil {
		return nil, specError("%v", err)
	}
	return ts, nil
}
