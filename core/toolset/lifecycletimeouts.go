package toolset

import (
	"time"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
	"github.com/starweaver-go/starweaver/core/tool"
)

// LifecycleTimeouts are the timeouts of a [LifecyclePolicy] as a host
// states them: a nil timeout keeps the policy's default, a given one must
// be positive. They exist because LifecyclePolicy cannot tell an explicit
// 0 from an unset timeout (both mean the default there), while a host
// that states a timeout of 0 has made a mistake that must be reported.
type LifecycleTimeouts struct {
	// Initialization sets LifecyclePolicy.InitializationTimeout.
	Initialization *time.Duration
	// Read sets LifecyclePolicy.ReadTimeout.
	Read *time.Duration
	// Exit sets LifecyclePolicy.ExitTimeout.
	Exit *time.Duration
}

// Apply checks t and sets its given timeouts on p. A timeout that is not
// positive fails, in the order Initialization, Read, Exit, with an error
// naming the toolset and the timeout by its wire name
// (`toolset "docs": read_timeout_ms must be positive, got 0`) that matches
// [tool.ErrInvalidOption]; p is then unchanged.
func (t LifecycleTimeouts) Apply(toolset string, p *LifecyclePolicy) error {
	return optionerr.SetPositive([]optionerr.Positive[time.Duration]{
		{Name: "initialization_timeout_ms", Value: t.Initialization, Into: &p.InitializationTimeout},
		{Name: "read_timeout_ms", Value: t.Read, Into: &p.ReadTimeout},
		{Name: "exit_timeout_ms", Value: t.Exit, Into: &p.ExitTimeout},
	}, func(name string, d time.Duration) error {
		return optionerr.New(tool.ErrInvalidOption, "toolset %q: %s must be positive, got %d", toolset, name, d.Milliseconds())
	})
}
