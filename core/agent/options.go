package agent

import (
	"maps"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// RunOption adjusts one run without changing the agent.
type RunOption func(*runOptions)

type runOptions struct {
	tools        []tool.Tool
	toolsets     []toolset.Toolset
	instructions []string
	events       []EventHandler
	warnings     []WarningHandler
	metadata     map[string]any
	deps         *tool.Deps
	limits       UsageLimits
	settings     model.Settings
	activeTags   []string
	deltas       bool
	steering     *Steering
	tracer       Tracer
	// grants are the tools the run may call (nil: every registered one;
	// see WithGrants); toolErrorPolicy overrides the agent's when set.
	grants          []string
	toolErrorPolicy *ToolErrorPolicy
	// executor carries out the model requests and tool batches (see
	// Executor); runID replaces the random run id (see WithRunID).
	executor Executor
	runID    string
}

// WithTools adds tools to this run only.
func WithTools(t ...tool.Tool) RunOption {
	return func(o *runOptions) { o.tools = append(o.tools, t...) }
}

// WithToolsets adds toolsets to this run only.
func WithToolsets(ts ...toolset.Toolset) RunOption {
	return func(o *runOptions) { o.toolsets = append(o.toolsets, ts...) }
}

// WithInstructions adds instructions to this run only.
func WithInstructions(s ...string) RunOption {
	return func(o *runOptions) { o.instructions = append(o.instructions, s...) }
}

// WithEvents receives the run's events.
func WithEvents(h EventHandler) RunOption {
	return func(o *runOptions) {
		if h != nil {
			o.events = append(o.events, h)
		}
	}
}

// WithMetadata merges md over the agent's run metadata for this run.
func WithMetadata(md map[string]any) RunOption {
	return func(o *runOptions) {
		if o.metadata == nil {
			o.metadata = map[string]any{}
		}
		maps.Copy(o.metadata, md)
	}
}

// WithDeps replaces the agent's dependencies for this run.
func WithDeps(d *tool.Deps) RunOption {
	return func(o *runOptions) { o.deps = d }
}

// WithUsageLimits overrides the agent's usage limits for this run: the
// fields set in l replace the agent's. A negative field makes the run fail
// with ErrInvalidLimit before it starts.
func WithUsageLimits(l UsageLimits) RunOption {
	return func(o *runOptions) { o.limits = o.limits.over(l) }
}

// WithActiveTags adds capability tags active in this run to the agent's:
// a tool whose hidden_by_tags holds one of them is unavailable for the run
// (reported in the tools_unavailable event, and failing the run under
// [FailOnUnavailable]).
func WithActiveTags(tags ...string) RunOption {
	return func(o *runOptions) { o.activeTags = append(o.activeTags, tags...) }
}

// WithDeltas makes the run report responses while they stream: the model
// is asked through [model.StreamOrRequest] and every delta becomes a
// text_delta, thinking_delta or tool_call_delta event. A model that does
// not stream reports its whole response at once, in part order, once it
// has arrived. The run also emits the other live events: usage after each
// response, retry after each return that spent a correction, suspended
// before run_waiting.
func WithDeltas() RunOption {
	return func(o *runOptions) { o.deltas = true }
}

// WithSteering lets s add prompts to the run while it runs (see
// [Steering]). The run closes s when it ends.
func WithSteering(s *Steering) RunOption {
	return func(o *runOptions) { o.steering = s }
}
