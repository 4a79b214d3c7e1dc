package toolset

import (
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Toolset is a named group of tools with shared instructions and defaults.
//
// Tools and Instructions receive the run context of the step being
// prepared; rc may be nil when a caller lists tools outside any run, and
// implementations must accept that. Tools returns the tools for that step:
// it may differ from step to step (prepared or dynamic toolsets). An error
// from Tools fails the preparation of the run step; it must not be used to
// hide tools (return fewer tools instead).
type Toolset interface {
	// Name is the human-readable name, used in errors and as the default
	// instruction group.
	Name() string
	// ID is a stable identifier for durable state, or "" when none.
	ID() string
	// Tools returns the tools of the toolset for rc.
	Tools(rc *tool.RunContext) ([]tool.Tool, error)
	// Instructions returns the instructions that explain the tools.
	Instructions(rc *tool.RunContext) []Instruction
	// Defaults returns what every tool of the toolset inherits when it
	// sets no value of its own.
	Defaults() Defaults
}

// Instruction is a piece of prompt text shared by the tools of a toolset.
// Instructions are grouped: when several toolsets contribute the same
// group, only the first is kept (see [RenderInstructions]).
type Instruction struct {
	Group   string `json:"group"`
	Content string `json:"content"`
}

// Defaults are the values a toolset's tools inherit. They sit between the
// tool's own value and the registry's: tool > toolset > registry. The zero
// value sets nothing.
type Defaults struct {
	// MaxRetries is the retry budget, when non-nil.
	MaxRetries *int
	// Timeout is the execution timeout, when positive.
	Timeout time.Duration
	// Concurrency, when set, caps the calls of each tool of the toolset on
	// its own (Limiters.For the tool's name); a tool's own limit wins. It
	// is shared by every copy of the Defaults, so the runs that register
	// the toolset share the caps.
	Concurrency *tool.Limiters
}

// IsZero reports whether d sets nothing.
func (d Defaults) IsZero() bool { return d.MaxRetries == nil && d.Timeout <= 0 && d.Concurrency == nil }

// limiterFor is the toolset's Limiter of the named tool, or nil.
func (d Defaults) limiterFor(name string) *tool.Limiter {
	if d.Concurrency == nil {
		return nil
	}
	return d.Concurrency.For(name)
}
