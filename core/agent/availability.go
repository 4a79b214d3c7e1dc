package agent

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// AvailabilityReport is what a run's first model request would offer, and
// why each other tool is not offered (see [Session.AvailabilityReport]).
type AvailabilityReport struct {
	tool.AvailabilityReport
	// Instructions are the instructions the request would carry: the
	// agent's and the run's, then the toolsets' rendered block.
	Instructions string `json:"instructions"`
}

// AvailabilityReport previews a run of s with opts without running it:
// it builds the run as Run does (the agent's and the run's tools and
// toolsets, metadata, dependencies, active tags, grants and the session's
// agent context), prepares its toolsets for the first step (entering the
// lifecycles of those that have one, and closing them again before it
// returns) and reports the tools the first model request would offer,
// computed by the same code the run uses before each request
// ([tool.Registry.AvailabilityReport] over [tool.Registry.DefinitionsFor]).
// No model is asked, no tool runs, no event is published as a run's and
// the session's history is unchanged. Like a run it takes the session
// (ErrState while another run holds it or while it waits for a resume).
// A toolset that cannot be prepared fails it as it would fail the run.
func (s *Session) AvailabilityReport(ctx context.Context, opts ...RunOption) (*AvailabilityReport, error) {
	o, history, w, err := s.begin(opts)
	if err != nil {
		return nil, err
	}
	defer s.release()
	if w != nil {
		return nil, fmt.Errorf("%w: the session waits for approvals or deferred results; resume it first", ErrState)
	}
	r, err := newRunner(ctx, s, o, history)
	if err != nil {
		return nil, err
	}
	defer r.finish()
	if r.ts != nil {
		if err := r.prepareToolsets(ctx, 0); err != nil {
			return nil, err
		}
	}
	rep := r.reg.AvailabilityReport(&r.rc)
	return &AvailabilityReport{AvailabilityReport: rep, Instructions: r.instructions}, nil
}

// AvailabilityReport previews a run in a fresh session (see
// [Session.AvailabilityReport]).
func (a *Agent) AvailabilityReport(ctx context.Context, opts ...RunOption) (*AvailabilityReport, error) {
	return a.NewSession().AvailabilityReport(ctx, opts...)
}
