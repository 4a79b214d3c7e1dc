package tool

import "maps"

// RunLimits are a run's usage limits as its tools see them; 0 means no
// limit (or none known: a call outside an agent's run).
type RunLimits struct {
	RequestLimit      int `json:"request_limit,omitempty"`
	ToolCallsLimit    int `json:"tool_calls_limit,omitempty"`
	InputTokensLimit  int `json:"input_tokens_limit,omitempty"`
	OutputTokensLimit int `json:"output_tokens_limit,omitempty"`
	TotalTokensLimit  int `json:"total_tokens_limit,omitempty"`
}

// RuntimeSnapshot is the read-only view of the runtime a call receives
// (seed 000's ToolRuntimeSnapshot): the run's model and tool limits, the
// call's own budgets and, for a Legacy call, the shell configuration. It
// is what a Legacy tool gets instead of a copy of the whole agent context:
// the values are copied when the call's context is derived, so a tool
// changing them changes nothing else, and later changes of the session do
// not reach a call already running.
//
// Every profile receives the limits. The shell values are removed for
// Filtered and Strict calls: such a tool receives them only through the
// dedicated Context.ShellEnv (the ShellEnvironmentSnapshot), when it
// declares the shell environment (and, Strict, was granted it).
type RuntimeSnapshot struct {
	// Limits are the run's usage limits (the agent's, with the run's
	// over them).
	Limits RunLimits `json:"limits"`
	// MaxRetries and TimeoutMS are the call's effective retry budget and
	// timeout (0: none), as the registry resolves them (tool, toolset,
	// registry).
	MaxRetries int   `json:"max_retries"`
	TimeoutMS  int64 `json:"timeout_ms,omitempty"`
	// ShellEnvironment is the configured shell environment; nil for
	// Filtered and Strict calls, and when none is configured.
	ShellEnvironment map[string]string `json:"shell_environment,omitempty"`
}

// runtimeSnapshot is the snapshot of a call of e, from the run's limits
// and the session's shell environment; shell says whether the call's
// profile keeps the shell values (Legacy only).
func (r *Registry) runtimeSnapshot(e *entry, limits RunLimits, maxRetries int, shellEnv map[string]string, shell bool) RuntimeSnapshot {
	s := RuntimeSnapshot{Limits: limits, MaxRetries: maxRetries, TimeoutMS: r.timeoutOf(e).Milliseconds()}
	if shell && len(shellEnv) > 0 {
		s.ShellEnvironment = maps.Clone(shellEnv)
	}
	return s
}
