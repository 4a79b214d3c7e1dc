package agentctx

import (
	"maps"
	"slices"
	"sync"
)

// The context capabilities: names a tool declares (tool dependency
// metadata, "context_capabilities") to receive the matching mutable handle.
// A tool asking for any of them runs sequentially (its batch keeps model
// order), because its writes would otherwise race with other calls'.
const (
	CapabilityHandoff    = "starweaver.context.handoff"
	CapabilityTasks      = "starweaver.context.tasks"
	CapabilityUsage      = "starweaver.context.usage"
	CapabilityToolSearch = "starweaver.context.tool_search"
)

// KnownCapability reports whether name is one of the context capabilities.
// Unknown names in a declaration or a grant are ignored.
func KnownCapability(name string) bool {
	switch name {
	case CapabilityHandoff, CapabilityTasks, CapabilityUsage, CapabilityToolSearch:
		return true
	}
	return false
}

// Grant is the authority a host grants one tool: the only authority a
// Strict tool can receive (it gets the intersection of what it declares
// and what it was granted). The zero value grants nothing.
type Grant struct {
	HostCapabilities    []string `json:"host_capabilities"`
	ContextCapabilities []string `json:"context_capabilities"`
	ShellEnvironment    bool     `json:"shell_environment"`
}

func (g Grant) clone() Grant {
	g.HostCapabilities = slices.Clone(g.HostCapabilities)
	g.ContextCapabilities = slices.Clone(g.ContextCapabilities)
	return g
}

// Event is a context event: something the context's state or a tool of
// the run wants the host to know (tool_search_loaded, toolset_closed, ...).
// A running agent delivers it as a custom event with this kind and payload.
type Event struct {
	Kind    string         `json:"kind"`
	Payload map[string]any `json:"payload,omitempty"`
}

// Usage counts what model requests consumed, as a context capability sees
// it (UsageHandle).
type Usage struct {
	Requests     int `json:"requests"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Context is the mutable per-session agent context. Create it with New;
// the zero value is not usable.
type Context struct {
	mu       sync.Mutex
	metadata map[string]any
	notes    map[string]string
	named    map[string]any
	grants   map[string]Grant
	defaults map[string]Grant
	tools    []string
	spaces   []string
	tasks    []Task
	nextTask int
	handoff  string
	shellEnv map[string]string
	usage    Usage
	pending  []Event
	sink     func(Event)
}

// New returns an empty context.
func New() *Context { return &Context{} }

// Metadata returns a copy of the context's metadata.
func (c *Context) Metadata() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.metadata)
}

// SetMetadata sets one metadata key; a nil value deletes it.
func (c *Context) SetMetadata(key string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v == nil {
		delete(c.metadata, key)
		return
	}
	if c.metadata == nil {
		c.metadata = map[string]any{}
	}
	c.metadata[key] = v
}

// Note returns the note under key and whether it is set.
func (c *Context) Note(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.notes[key]
	return v, ok
}

// SetNote sets a note; an empty value deletes it.
func (c *Context) SetNote(key, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if value == "" {
		delete(c.notes, key)
		return
	}
	if c.notes == nil {
		c.notes = map[string]string{}
	}
	c.notes[key] = value
}

// Notes returns a copy of every note.
func (c *Context) Notes() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.notes)
}

// InsertNamedDependency registers v under a stable capability name: the
// names tools request as host capabilities. Named dependencies are host
// configuration and are not exported.
func (c *Context) InsertNamedDependency(name string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.named == nil {
		c.named = map[string]any{}
	}
	c.named[name] = v
}

// NamedDependencies returns a copy of the named dependencies; nil for a
// nil Context.
func (c *Context) NamedDependencies() map[string]any {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.named)
}

// GrantToolCapabilities installs the grant of the tool registered under
// name, replacing an earlier one.
func (c *Context) GrantToolCapabilities(name string, g Grant) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.grants == nil {
		c.grants = map[string]Grant{}
	}
	c.grants[name] = g.clone()
}

// RevokeToolCapabilities removes the tool's grant.
func (c *Context) RevokeToolCapabilities(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.grants, name)
}

// ToolCapabilityGrant returns the grant of the named tool: the context's
// own, else the default one (SetDefaultGrants); without either a Strict
// tool receives no authority.
func (c *Context) ToolCapabilityGrant(name string) (Grant, bool) {
	if c == nil {
		return Grant{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.grants[name]
	if !ok {
		g, ok = c.defaults[name]
	}
	return g.clone(), ok
}

// SetDefaultGrants sets the grants of tools the context has no grant of
// its own for: an agent's configured grants, which every session of the
// agent starts with. They are host configuration and are not exported.
func (c *Context) SetDefaultGrants(grants map[string]Grant) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.defaults = make(map[string]Grant, len(grants))
	for k, g := range grants {
		c.defaults[k] = g.clone()
	}
}

// SetShellEnvironment sets the environment variables configured for
// shell tools; tools see them only through their profile (see the
// package comment). Not exported.
func (c *Context) SetShellEnvironment(env map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shellEnv = maps.Clone(env)
}

// ShellEnvironment returns a copy of the configured shell environment.
func (c *Context) ShellEnvironment() map[string]string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.shellEnv)
}

// AddUsage adds what one model request consumed; the agent calls it after
// each response. A nil Context ignores it.
func (c *Context) AddUsage(u Usage) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usage.Requests += u.Requests
	c.usage.InputTokens += u.InputTokens
	c.usage.OutputTokens += u.OutputTokens
}

// Usage returns what the context's runs consumed.
func (c *Context) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usage
}

// HandoffMessage returns the message a tool left for whoever continues the
// conversation, or "".
func (c *Context) HandoffMessage() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handoff
}

// SetHandoffMessage sets the handoff message; "" clears it.
func (c *Context) SetHandoffMessage(m string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handoff = m
}
