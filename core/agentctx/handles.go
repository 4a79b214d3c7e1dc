package agentctx

// The handles are the narrow, mutable views of a Context that a tool
// receives for the context capabilities it was authorised (see the package
// comment). Each is a value wrapping the context; a nil handle means the
// capability was not authorised.

// ToolSearchHandle reads and records the tool-search loaded state and
// publishes tool-search events (starweaver.context.tool_search).
type ToolSearchHandle struct{ c *Context }

// Loaded returns the loaded tools and namespaces.
func (h *ToolSearchHandle) Loaded() (tools, namespaces []string) { return h.c.ToolSearchLoaded() }

// Record adds to the loaded state; see Context.RecordToolSearchLoaded.
func (h *ToolSearchHandle) Record(tools, namespaces []string) (newTools, newNamespaces []string) {
	return h.c.RecordToolSearchLoaded(tools, namespaces)
}

// Publish publishes a context event.
func (h *ToolSearchHandle) Publish(kind string, payload map[string]any) { h.c.Publish(kind, payload) }

// TasksHandle keeps the task list (starweaver.context.tasks).
type TasksHandle struct{ c *Context }

// Tasks returns the task list.
func (h *TasksHandle) Tasks() []Task { return h.c.Tasks() }

// Add appends a pending task.
func (h *TasksHandle) Add(title string) Task { return h.c.AddTask(title) }

// SetStatus changes a task's status.
func (h *TasksHandle) SetStatus(id, status string) bool { return h.c.SetTaskStatus(id, status) }

// UsageHandle reads and adds usage (starweaver.context.usage), for tools
// that call models themselves.
type UsageHandle struct{ c *Context }

// Usage returns the usage so far.
func (h *UsageHandle) Usage() Usage { return h.c.Usage() }

// Add adds usage a tool consumed.
func (h *UsageHandle) Add(u Usage) { h.c.AddUsage(u) }

// HandoffHandle reads and sets the handoff message
// (starweaver.context.handoff).
type HandoffHandle struct{ c *Context }

// Message returns the handoff message.
func (h *HandoffHandle) Message() string { return h.c.HandoffMessage() }

// Set sets the handoff message.
func (h *HandoffHandle) Set(m string) { h.c.SetHandoffMessage(m) }

// Handles are the context handles one call was authorised; unauthorised
// ones are nil.
type Handles struct {
	ToolSearch *ToolSearchHandle
	Tasks      *TasksHandle
	Usage      *UsageHandle
	Handoff    *HandoffHandle
}

// HandlesFor returns the handles for the named capabilities; unknown
// names are ignored. A nil Context gives no handles.
func (c *Context) HandlesFor(capabilities []string) Handles {
	var h Handles
	if c == nil {
		return h
	}
	for _, name := range capabilities {
		switch name {
		case CapabilityToolSearch:
			h.ToolSearch = &ToolSearchHandle{c}
		case CapabilityTasks:
			h.Tasks = &TasksHandle{c}
		case CapabilityUsage:
			h.Usage = &UsageHandle{c}
		case CapabilityHandoff:
			h.Handoff = &HandoffHandle{c}
		}
	}
	return h
}
