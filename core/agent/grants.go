package agent

import (
	"fmt"
	"slices"

	"github.com/starweaver-go/starweaver/core/tool"
)

// WithGrants limits this run to calling the named tools (tool.GrantAll,
// "*", grants every one): an agent's registration says what it could
// call, a run's grants what this run may call. Without WithGrants a run
// may call every tool it registers; WithGrants() with no names grants
// none. The others are left out of the definitions sent to the model, and
// a call that names one anyway (a model guessing) is refused as a
// user_error return, "tool X is not granted to this run", before any
// hook, validation or attempt of the tool and so before any effect; it
// spends no correction budget (user_error never does), and fails the run
// under FailFast. A name the run does not register (the agent's tools and
// toolsets, the run's own) makes the run fail with ErrConfig before it
// starts. The runtime's own tools (the output tool, read_artifact) need no
// grant. Later WithGrants options replace earlier ones.
func WithGrants(names ...string) RunOption {
	names = append([]string{}, names...) // not nil: no names grants none
	return func(o *runOptions) { o.grants = names }
}

// restrict applies what the run's options decide about its registry:
// grants narrow it, and the tool error policy is checked.
func (o *runOptions) restrict(reg *tool.Registry) (*tool.Registry, error) {
	if o.toolErrorPolicy != nil {
		if err := o.toolErrorPolicy.check(); err != nil {
			return nil, err
		}
	}
	if o.grants == nil {
		return reg, nil
	}
	// read_artifact is registered after the grants apply: granting it by
	// name is no error.
	names := slices.DeleteFunc(slices.Clone(o.grants), func(n string) bool { return n == ReadArtifactToolName })
	g, err := reg.Grant(names...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return g, nil
}
