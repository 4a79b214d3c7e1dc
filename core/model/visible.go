package model

import "github.com/starweaver-go/starweaver/core/tool"

// Visible returns the model-visible projection of m: what any model (a
// provider, TestModel, FunctionModel, a host model) may receive. Tool
// returns keep only their call id, name, content (a result's model content
// already replaced it), content parts, structured content, error flag and
// public metadata; the application, user and private surfaces (app_value,
// user_content, private_metadata, which holds host tracebacks) stay on the
// host side. A host-only return keeps nothing but its identity and the
// flag, which providers refuse (see ReturnParts): the agent never lets one
// into history, so meeting one here is a bug, and it fails closed.
//
// Artifact references in parts stay references: ResolveArtifacts reads
// their bytes just before a request is sent.
//
// A message without tool returns is returned as is, sharing its parts, so
// projecting a history costs nothing for most messages; one with returns
// gets a new part slice. m is not modified.
func Visible(m Message) Message {
	hasReturn := false
	for i := range m.Parts {
		if m.Parts[i].Return != nil {
			hasReturn = true
			break
		}
	}
	if !hasReturn {
		return m
	}
	parts := make([]Part, len(m.Parts))
	copy(parts, m.Parts)
	// The projections are made with one allocation for all the returns.
	n := 0
	for i := range parts {
		if parts[i].Return != nil {
			n++
		}
	}
	vis := make([]tool.Return, 0, n)
	for i := range parts {
		if r := parts[i].Return; r != nil {
			vis = append(vis, VisibleReturn(*r))
			parts[i].Return = &vis[len(vis)-1]
		}
	}
	m.Parts = parts
	return m
}

// VisibleReturn returns the model-visible fields of r (see Visible). It
// lists what is kept, so a surface added to tool.Return later stays hidden
// until it is deliberately made visible here. Runtime is kept: it is
// written into the public metadata.
func VisibleReturn(r tool.Return) tool.Return {
	if r.HostOnly {
		return tool.Return{ToolCallID: r.ToolCallID, Name: r.Name, IsError: r.IsError, HostOnly: true}
	}
	return tool.Return{ToolCallID: r.ToolCallID, Name: r.Name, Content: r.Content, IsError: r.IsError, Metadata: r.Metadata,
		Runtime: r.Runtime, Parts: r.Parts, StructuredContent: r.StructuredContent}
}
