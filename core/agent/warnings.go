package agent

// Warning is something a run went on despite, which whoever runs it
// should hear of without asking for events: a host logs it (the Python
// package at WARNING on the "starweaver" logger). Events report the same
// thing to those who observe the run.
type Warning struct {
	// Kind says what happened: WarningToolsetUnavailable.
	Kind string `json:"kind"`
	// Toolset and ID name the toolset concerned.
	Toolset string `json:"toolset,omitempty"`
	ID      string `json:"id,omitempty"`
	// Message says what happened and why, for a log line.
	Message string `json:"message"`
}

// Warning kinds.
const (
	// WarningToolsetUnavailable: a toolset could not be entered (an MCP
	// server that did not start, say) and the run goes on without its
	// tools, because the toolset is optional or its policy and the
	// agent's leave unavailable toolsets out. A toolset_unavailable event
	// reports it too.
	WarningToolsetUnavailable = "toolset_unavailable"
)

// WarningHandler receives a run's warnings, on the run's goroutine, as
// they happen. It must not block.
type WarningHandler func(Warning)

// WithWarnings makes h receive the run's warnings (see Warning).
func WithWarnings(h WarningHandler) RunOption {
	return func(o *runOptions) {
		if h != nil {
			o.warnings = append(o.warnings, h)
		}
	}
}

// warn hands w to the run's warning handlers.
func (r *runner) warn(w Warning) {
	for _, h := range r.o.warnings {
		h(w)
	}
}
