package toolset

import (
	"context"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Lifecycle is implemented by toolsets backed by a resource that must be
// set up before their inventory is read and released when a run ends (a
// server process, a connection). The agent calls Enter before it first
// reads the toolset's tools in a run and Exit on every end of that run
// (completed, failed, cancelled or waiting), each bounded by the toolset's
// LifecyclePolicy. Enter and Exit get the run's context for cancellation;
// rc is the run context of the step being prepared.
type Lifecycle interface {
	Enter(ctx context.Context, rc *tool.RunContext) error
	Exit(ctx context.Context, rc *tool.RunContext) error
}

// LifecyclePolicy bounds and shapes a toolset's lifecycle. The zero value
// is the default: enter before preparation, exit after the run, no
// timeouts beyond the run's own, and an unavailable toolset is reported
// (toolset_unavailable) and left out of the run rather than failing it.
type LifecyclePolicy struct {
	// InitializationTimeout bounds Enter, when positive.
	InitializationTimeout time.Duration
	// ReadTimeout bounds each read of the inventory (Tools, Instructions),
	// when positive.
	ReadTimeout time.Duration
	// ExitTimeout bounds Exit, when positive.
	ExitTimeout time.Duration
	// SkipEnter leaves Enter uncalled (enter_before_prepare=False).
	SkipEnter bool
	// KeepOpen leaves Exit uncalled at the end of runs
	// (exit_after_run=False).
	KeepOpen bool
	// FailOnUnavailable fails the run when the toolset cannot be entered
	// or read, instead of leaving it out.
	FailOnUnavailable bool
}

// PolicyHolder is implemented by toolsets that carry their own
// LifecyclePolicy (see WithLifecycle).
type PolicyHolder interface {
	LifecyclePolicy() LifecyclePolicy
}
