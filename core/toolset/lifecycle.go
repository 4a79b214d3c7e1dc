package toolset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Lifecycle is implemented by toolsets backed by a resource that must be
// set up before their inventory is read and released when a run ends (a
// server process, a connection). The agent calls Enter before it first
// reads the toolset's tools in a run and Exit on every end of that run
// (completed, failed, cancelled or waiting), each bounded by the toolset's
// LifecyclePolicy. Enter and Exit get the run's context for cancellation;
// rc is the run context of the step being prepared (for Exit, RunStep is
// the number of model requests the run made).
//
// Exit is called only for a toolset whose Enter succeeded (or that was
// read without Enter, see LifecyclePolicy.SkipEnter): as with a context
// manager, a failed Enter is expected to release what it acquired itself.
// A Lifecycle inside a combinator (Prefixed, Filtered, ...) is found by
// [Walk], so wrapping a toolset never hides its lifecycle.
type Lifecycle interface {
	Enter(ctx context.Context, rc *tool.RunContext) error
	Exit(ctx context.Context, rc *tool.RunContext) error
}

// Refresher is implemented by toolsets that re-prepare their inventory
// differently when a run continues after a pause (a human-in-the-loop
// resume, a recovery): the agent calls Refresh, bounded by the read
// timeout, instead of nothing before the first read of the continued run,
// so that the toolset can drop what it cached for the paused run. rc
// carries the same run id as the paused run.
type Refresher interface {
	Refresh(ctx context.Context, rc *tool.RunContext) error
}

// Dynamic is implemented by toolsets whose tools change from one step of a
// run to the next. When PerStep reports true, the agent reads the toolset
// again before every model request of a run, instead of once per run, and
// rebuilds the part of the run's registry that the toolset contributes;
// agents without such toolsets keep the registry built once per run.
type Dynamic interface {
	PerStep() bool
}

// LifecyclePolicy bounds and shapes a toolset's lifecycle. The zero value
// is the default: enter before preparation, exit after the run, no
// timeouts for Enter and reads beyond the run's own cancellation, Exit
// bounded by DefaultExitTimeout, and a toolset that cannot be entered is
// reported (toolset_unavailable, and a run warning) and left out of the
// run rather than failing it, unless the toolset decides otherwise itself
// ([Optionality]: an MCP server's toolset fails the run unless optional).
type LifecyclePolicy struct {
	// InitializationTimeout bounds Enter, when positive.
	InitializationTimeout time.Duration
	// ReadTimeout bounds each read of the inventory (Refresh, Tools and
	// Instructions together), when positive.
	ReadTimeout time.Duration
	// ExitTimeout bounds Exit, when positive; DefaultExitTimeout when not.
	// Exit runs after the run's end, cancellation included, so it is
	// always bounded; after a cancellation by CancelledExitTimeout at most.
	ExitTimeout time.Duration
	// SkipEnter leaves Enter uncalled (enter_before_prepare=False).
	SkipEnter bool
	// KeepOpen leaves Exit uncalled at the end of runs
	// (exit_after_run=False).
	KeepOpen bool
	// FailOnUnavailable fails the run when the toolset cannot be entered,
	// instead of leaving it out. A failed read always fails the run (an
	// error from Tools must not be used to hide tools, see [Toolset]).
	FailOnUnavailable bool
}

// Exit bounds used when a policy sets none, and after a cancellation (the
// host of a cancelled run stops waiting for it soon).
const (
	DefaultExitTimeout   = 10 * time.Second
	CancelledExitTimeout = time.Second
)

// PolicyHolder is implemented by toolsets that carry their own
// LifecyclePolicy (see WithLifecycle).
type PolicyHolder interface {
	LifecyclePolicy() LifecyclePolicy
}

// WithLifecycle returns ts under policy p: the agent enters, reads and
// exits it as p says. The result has the name, id, tools, instructions and
// defaults of ts; the Lifecycle, Refresher and Dynamic toolsets inside ts
// are still found by [Walk]. WithLifecycle panics if ts is nil.
func WithLifecycle(ts Toolset, p LifecyclePolicy) Toolset {
	mustToolset(ts, "WithLifecycle")
	return &withPolicy{Toolset: ts, policy: p}
}

type withPolicy struct {
	Toolset
	policy LifecyclePolicy
}

func (w *withPolicy) LifecyclePolicy() LifecyclePolicy { return w.policy }

// Unwrap returns the toolset under the policy.
func (w *withPolicy) Unwrap() Toolset { return w.Toolset }

// Walk calls visit for ts and, depth first, for every toolset inside it:
// a toolset with an Unwrap() Toolset method (the combinators of this
// package) contains the one it returns, and one with Unwrap() []Toolset
// (Combined) contains those. Walk stops going down a branch when visit
// returns false.
func Walk(ts Toolset, visit func(Toolset) bool) {
	if ts == nil || !visit(ts) {
		return
	}
	switch u := ts.(type) {
	case interface{ Unwrap() Toolset }:
		Walk(u.Unwrap(), visit)
	case interface{ Unwrap() []Toolset }:
		for _, m := range u.Unwrap() {
			Walk(m, visit)
		}
	}
}

// Managed reports whether the agent must manage ts itself rather than
// read it once per run: something inside it has a lifecycle, a policy,
// a refresh or a per-step inventory.
func Managed(ts Toolset) bool {
	found := false
	Walk(ts, func(t Toolset) bool {
		switch v := t.(type) {
		case Lifecycle, PolicyHolder, Refresher:
			found = true
		case Dynamic:
			found = v.PerStep()
		}
		return !found
	})
	return found
}

// Optionality is implemented by [Lifecycle] toolsets that say themselves
// whether a run may go on without them when their Enter fails: a toolset
// that reports false (an MCP server's, unless marked optional) fails the
// run, one that reports true is left out of it with a warning, whatever
// the agent's policy on unavailable tools. A [LifecyclePolicy] with
// FailOnUnavailable fails the run either way. Toolsets that do not
// implement it follow their policy and the agent's.
type Optionality interface {
	Optional() bool
}

// PolicyOf returns the policy of the outermost [PolicyHolder] in ts, or
// the zero policy.
func PolicyOf(ts Toolset) LifecyclePolicy {
	var p LifecyclePolicy
	Walk(ts, func(t Toolset) bool {
		if h, ok := t.(PolicyHolder); ok {
			p = h.LifecyclePolicy()
			return false
		}
		return true
	})
	return p
}

// PerStep reports whether some toolset in ts is [Dynamic] per step.
func PerStep(ts Toolset) bool {
	per := false
	Walk(ts, func(t Toolset) bool {
		if d, ok := t.(Dynamic); ok && d.PerStep() {
			per = true
		}
		return !per
	})
	return per
}

// LifecyclesOf returns the Lifecycle toolsets in ts, outermost first.
func LifecyclesOf(ts Toolset) []Lifecycle {
	var out []Lifecycle
	Walk(ts, func(t Toolset) bool {
		if l, ok := t.(Lifecycle); ok {
			out = append(out, l)
		}
		return true
	})
	return out
}

// RefreshersOf returns the Refresher toolsets in ts, outermost first.
func RefreshersOf(ts Toolset) []Refresher {
	var out []Refresher
	Walk(ts, func(t Toolset) bool {
		if r, ok := t.(Refresher); ok {
			out = append(out, r)
		}
		return true
	})
	return out
}

// ErrTimeout is the cause of a [LifecycleError] whose phase did not end
// within its policy's bound.
var ErrTimeout = errors.New("toolset: timed out")

// LifecycleError is the failure of one phase of a toolset's lifecycle:
// "enter", "read" (Refresh, Tools, Instructions) or "exit".
type LifecycleError struct {
	Toolset string
	ID      string
	Phase   string
	// Timeout is the bound that passed, when Err is ErrTimeout.
	Timeout time.Duration
	Err     error
}

func (e *LifecycleError) Error() string {
	if errors.Is(e.Err, ErrTimeout) {
		return fmt.Sprintf("toolset %q: %s timed out after %v", e.Toolset, e.Phase, e.Timeout)
	}
	return fmt.Sprintf("toolset %q: %s: %v", e.Toolset, e.Phase, e.Err)
}

func (e *LifecycleError) Unwrap() error { return e.Err }
