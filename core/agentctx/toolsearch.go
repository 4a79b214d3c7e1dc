package agentctx

import "slices"

// ToolSearchLoaded returns the names of the tools and the namespaces a
// tool search loaded (made visible to the model), in the order loaded.
func (c *Context) ToolSearchLoaded() (tools, namespaces []string) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tools), slices.Clone(c.spaces)
}

// IsToolSearchLoaded reports whether the tool, or its namespace when not
// "", is loaded.
func (c *Context) IsToolSearchLoaded(tool, namespace string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.tools, tool) || (namespace != "" && slices.Contains(c.spaces, namespace))
}

// RecordToolSearchLoaded adds tools and namespaces to the loaded state
// (each once) and returns those that were not loaded before.
func (c *Context) RecordToolSearchLoaded(tools, namespaces []string) (newTools, newNamespaces []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range tools {
		if !slices.Contains(c.tools, t) {
			c.tools = append(c.tools, t)
			newTools = append(newTools, t)
		}
	}
	for _, n := range namespaces {
		if !slices.Contains(c.spaces, n) {
			c.spaces = append(c.spaces, n)
			newNamespaces = append(newNamespaces, n)
		}
	}
	return newTools, newNamespaces
}

// RetainToolSearchLoaded keeps only the loaded tools and namespaces for
// which keep returns true (namespace reports which kind a name is) and
// returns the removed ones. keep is called with the lock held and must not
// use c.
func (c *Context) RetainToolSearchLoaded(keepTool, keepNamespace func(string) bool) (removedTools, removedNamespaces []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools, removedTools = partition(c.tools, keepTool)
	c.spaces, removedNamespaces = partition(c.spaces, keepNamespace)
	return removedTools, removedNamespaces
}

// ClearToolSearchLoaded forgets every loaded tool and namespace and
// returns what was loaded.
func (c *Context) ClearToolSearchLoaded() (tools, namespaces []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tools, namespaces = c.tools, c.spaces
	c.tools, c.spaces = nil, nil
	return tools, namespaces
}

func partition(names []string, keep func(string) bool) (kept, removed []string) {
	kept = names[:0:0]
	for _, n := range names {
		if keep == nil || keep(n) {
			kept = append(kept, n)
		} else {
			removed = append(removed, n)
		}
	}
	return kept, removed
}
