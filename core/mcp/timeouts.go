package mcp

import (
	"time"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

// Timeouts are the timeouts of an MCP toolset as a host states them: a
// nil timeout keeps its default, a given one must be positive. They exist
// because [Options] cannot tell an explicit 0 from an unset timeout (both
// mean the default there), while a host that states a timeout of 0 has
// made a mistake that must be reported.
type Timeouts struct {
	// Read sets Options.ReadTimeout (read_timeout_ms).
	Read *time.Duration
	// Init sets Options.InitTimeout (init_timeout_ms).
	Init *time.Duration
	// Call sets Options.Defaults.Timeout, the tools' timeout (timeout_ms).
	Call *time.Duration
}

// Apply checks t and sets its given timeouts on o. A timeout that is not
// positive fails, in the order Read, Init, Call, with an error naming the
// toolset id and the timeout by its wire name
// (`toolset "docs": read_timeout_ms must be positive`) that matches
// [ErrConfig]; o is then unchanged.
func (t Timeouts) Apply(id string, o *Options) error {
	return optionerr.SetPositive([]optionerr.Positive[time.Duration]{
		{Name: "read_timeout_ms", Value: t.Read, Into: &o.ReadTimeout},
		{Name: "init_timeout_ms", Value: t.Init, Into: &o.InitTimeout},
		{Name: "timeout_ms", Value: t.Call, Into: &o.Defaults.Timeout},
	}, func(name string, _ time.Duration) error {
		return optionerr.New(ErrConfig, "toolset %q: %s must be positive", id, name)
	})
}
