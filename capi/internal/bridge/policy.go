package bridge

import "github.com/starweaver-go/starweaver/core/agent"

// applyPolicy gives the agent the spec's tool error policy; core keeps
// ReturnToModel when the spec names none. The spec's tool capability
// grants are agent.Options.ToolCapabilityGrants.
func (s agentSpec) applyPolicy(b *agent.Builder) {
	if s.ToolErrorPolicy != nil {
		b.ToolErrorPolicy(*s.ToolErrorPolicy)
	}
}

// policyOptions are the run options of the spec's tool error policy and
// grants: "grants" absent or null grants every tool, [] none.
func (s runSpec) policyOptions() []agent.RunOption {
	var opts []agent.RunOption
	if s.ToolErrorPolicy != nil {
		opts = append(opts, agent.WithToolErrorPolicy(*s.ToolErrorPolicy))
	}
	if s.Grants != nil {
		opts = append(opts, agent.WithGrants(s.Grants...))
	}
	return opts
}
