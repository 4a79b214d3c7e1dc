package agentctx

import (
	"maps"
	"slices"
)

// State is the exported form of a Context: what survives a session's
// export and restore. Named dependencies, the shell environment, usage and
// pending events are not part of it.
type State struct {
	Metadata                   map[string]any    `json:"metadata,omitempty"`
	Notes                      map[string]string `json:"notes,omitempty"`
	Grants                     map[string]Grant  `json:"tool_capability_grants,omitempty"`
	ToolSearchLoadedTools      []string          `json:"tool_search_loaded_tools,omitempty"`
	ToolSearchLoadedNamespaces []string          `json:"tool_search_loaded_namespaces,omitempty"`
	Tasks                      []Task            `json:"tasks,omitempty"`
	NextTask                   int               `json:"next_task,omitempty"`
	HandoffMessage             string            `json:"handoff_message,omitempty"`
}

// IsZero reports whether s holds nothing.
func (s State) IsZero() bool {
	return len(s.Metadata) == 0 && len(s.Notes) == 0 && len(s.Grants) == 0 && len(s.ToolSearchLoadedTools) == 0 &&
		len(s.ToolSearchLoadedNamespaces) == 0 && len(s.Tasks) == 0 && s.NextTask == 0 && s.HandoffMessage == ""
}

// Export returns the context's exportable state, deep enough copied that
// later changes to c do not show in it (metadata values are shared).
func (c *Context) Export() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := State{
		Metadata: maps.Clone(c.metadata), Notes: maps.Clone(c.notes),
		ToolSearchLoadedTools: slices.Clone(c.tools), ToolSearchLoadedNamespaces: slices.Clone(c.spaces),
		Tasks: slices.Clone(c.tasks), NextTask: c.nextTask, HandoffMessage: c.handoff,
	}
	if len(c.grants) > 0 {
		s.Grants = make(map[string]Grant, len(c.grants))
		for k, g := range c.grants {
			s.Grants[k] = g.clone()
		}
	}
	return s
}

// Restore replaces the context's exportable state with s; named
// dependencies, the shell environment and usage are kept.
func (c *Context) Restore(s State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.metadata, c.notes = maps.Clone(s.Metadata), maps.Clone(s.Notes)
	c.tools, c.spaces = slices.Clone(s.ToolSearchLoadedTools), slices.Clone(s.ToolSearchLoadedNamespaces)
	c.tasks, c.nextTask, c.handoff = slices.Clone(s.Tasks), s.NextTask, s.HandoffMessage
	c.grants = nil
	for k, g := range s.Grants {
		if c.grants == nil {
			c.grants = map[string]Grant{}
		}
		c.grants[k] = g.clone()
	}
}
