package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"go.temporal.io/sdk/workflow"
)

// Result is a run's result as it crosses Temporal: the agent's RunResult
// and, for a waiting run, the session state Resume continues. It is plain
// JSON (a workflow may return it, or keep it while it waits).
type Result struct {
	agent.RunResult
	// State is the waiting run's session state (Session.ExportState);
	// empty unless Status is waiting. It is signed when the agent has a
	// state key and checksummed otherwise, like any exported state.
	State json.RawMessage `json:"state,omitempty"`
}

// Run runs the agent on prompt inside the workflow of ctx, its model
// requests and calls as activities, and returns what agent.Run returns:
// the error is nil exactly when the run completed or waits (a failed run
// also returns its Result, with Status and Error set). It must be called
// from workflow code (it blocks the calling coroutine as activities do);
// a workflow may call it several times, also from several coroutines.
//
// The run's session and run ids are the workflow id plus a random
// suffix, recorded in the history, so they survive replay (and so do the
// calls' idempotency keys and the pending ids).
func (t *Agent) Run(ctx workflow.Context, prompt string, opts ...RunOption) (*Result, error) {
	c := collect(opts)
	id, err := runName(ctx)
	if err != nil {
		return nil, err
	}
	s, err := t.a.SessionWithID("conv_"+id, c.history)
	if err != nil {
		return nil, err
	}
	ro := append(c.agentOptions(), agent.WithExecutor(&executor{t: t, ctx: ctx}), agent.WithRunID("run_"+id))
	res, err := s.Run(context.Background(), prompt, ro...)
	return result(s, res, err)
}

// Resume continues prev, a waiting run's result, with the answers to all
// of its pending items (see Session.Resume), inside the workflow of ctx.
// WithMessageHistory does not apply; metadata and usage limits do.
// An invalid resolution fails with agent.ErrState and changes nothing:
// prev can be resumed again.
func (t *Agent) Resume(ctx workflow.Context, prev *Result, r agent.Resolution, opts ...RunOption) (*Result, error) {
	if prev == nil || prev.Status != agent.StatusWaiting || len(prev.State) == 0 {
		return nil, fmt.Errorf("%w: only a waiting run's result (with its state) can be resumed", agent.ErrState)
	}
	// The state comes from this workflow's own history: a checksum is
	// enough for an agent without a state key (one with a key still
	// verifies its signature).
	s, err := t.a.SessionFromState(prev.State, agent.AllowUnsigned())
	if err != nil {
		return nil, err
	}
	c := collect(opts)
	ro := append(c.agentOptions(), agent.WithExecutor(&executor{t: t, ctx: ctx}))
	res, err := s.Resume(context.Background(), r, ro...)
	return result(s, res, err)
}

func result(s *agent.Session, res *agent.RunResult, err error) (*Result, error) {
	if res == nil {
		return nil, err
	}
	out := &Result{RunResult: *res}
	if res.Status == agent.StatusWaiting {
		state, serr := s.ExportState()
		if serr != nil {
			return nil, fmt.Errorf("temporal: exporting the waiting run's state: %w", serr)
		}
		out.State = state
	}
	return out, err
}

// runName names a run: the workflow's id and a random suffix, recorded
// in the workflow's history (a side effect) so that the run's ids are the
// same when the workflow replays, also where its id is another (the
// SDK's replayer runs every history as "ReplayId").
func runName(ctx workflow.Context) (string, error) {
	var s string
	err := workflow.SideEffect(ctx, func(ctx workflow.Context) any {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		return workflow.GetInfo(ctx).WorkflowExecution.ID + "/" + hex.EncodeToString(b[:])
	}).Get(&s)
	if err != nil {
		return "", fmt.Errorf("temporal: recording the run id: %w", err)
	}
	return s, nil
}
