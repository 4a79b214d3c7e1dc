package agent

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
)

// Environment sets every session's default environment provider: the
// files and programs the filesystem and shell bundles work on. Tools
// receive the session's provider as the named dependency env.Capability
// ("starweaver.environment"), which they declare among their host
// capabilities.
//
// A virtual provider (*env.Virtual) is copied into each session, so
// sessions never see each other's files and a session's files travel with
// its exported state (see Session.ExportState); any other provider, such
// as a local directory, is shared by the sessions.
func (b *Builder) Environment(p env.Provider) *Builder { b.opts.Environment = p; return b }

// sessionEnvironment is the provider a new session starts with (see
// Builder.Environment).
func (a *Agent) sessionEnvironment() env.Provider {
	v, ok := a.environment.(*env.Virtual)
	if !ok {
		return a.environment
	}
	st, err := v.ExportState()
	if err != nil {
		return a.environment
	}
	c, err := env.NewVirtualFromState(st)
	if err != nil {
		return a.environment
	}
	return c
}

// SetEnvironment makes p the session's environment provider, replacing
// the agent's default (nil removes it). It takes effect from the next run
// (or resume); a run already going keeps the provider it started with.
// A provider implementing env.Exporter (the virtual one) is exported with
// the session's state and restored with it.
func (s *Session) SetEnvironment(p env.Provider) { installEnvironment(s.actx, p) }

// installEnvironment makes p the provider of the agent context c.
func installEnvironment(c *agentctx.Context, p env.Provider) {
	c.InsertNamedDependency(env.Capability, p)
}

// Environment returns the session's environment provider; nil for none.
func (s *Session) Environment() env.Provider {
	p, _ := s.actx.NamedDependencies()[env.Capability].(env.Provider)
	return p
}

// environmentState is the exported state of the session's provider when
// it has one (env.Exporter), nil otherwise. A provider whose export fails
// is left out: the restored session then starts with the agent's default.
func (s *Session) environmentState() *env.State {
	x, ok := s.Environment().(env.Exporter)
	if !ok {
		return nil
	}
	st, err := x.ExportState()
	if err != nil {
		return nil
	}
	return &st
}

// restoreEnvironment rebuilds the provider of exported state. Only
// virtual providers are restored; state of another kind is refused.
func restoreEnvironment(st *env.State) (env.Provider, error) {
	switch st.Kind {
	case "virtual":
		v, err := env.NewVirtualFromState(*st)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrState, err)
		}
		return v, nil
	default:
		return nil, fmt.Errorf("%w: session state holds an environment of kind %q, which cannot be restored (only virtual environments travel with state)", ErrState, st.Kind)
	}
}
