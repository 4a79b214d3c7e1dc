package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// childWait is a child run of an agent tool that stopped to wait for
// people (approvals, deferred results). The parent run waits in its
// stead: its Pending lists the child's requests (with Path and
// ParentToolCallID set), and its waitState keeps the child's state, so
// that resuming the parent, in this process or another, resumes the child
// where it stopped.
type childWait struct {
	// Agent is the label of the child agent (its name, or the tool's).
	Agent string `json:"agent"`
	// State is the child session's exported state. The parent's state
	// (signed or checksummed) covers it; the child verifies it again when
	// it restores it, with its own key when it has one.
	State json.RawMessage `json:"state"`
	// Usage is the child run's usage when it waited: the parent has
	// counted it already, and the resumed child counts on from it.
	Usage model.Usage `json:"usage"`
	// ByAgent is Usage per agent (the child's RunResult.UsageByAgent).
	ByAgent map[string]model.Usage `json:"by_agent,omitempty"`
	// asked is what the child waits for, in its own terms.
	asked []Pending
}

// pending returns the child's requests as requests of the parent's call
// callID: the child's agent is prepended to their path.
func (cw *childWait) pending(callID string) []Pending {
	out := make([]Pending, len(cw.asked))
	for i, p := range cw.asked {
		p.Path = append([]string{cw.Agent}, p.Path...)
		p.ParentToolCallID = callID
		out[i] = p
	}
	return out
}

// park records the waiting child of call callID of the batch in flight;
// account takes it when it meets the call's return. Called from the
// call's goroutine.
func (r *runner) park(callID string, cw *childWait) {
	r.childMu.Lock()
	defer r.childMu.Unlock()
	if r.parked == nil {
		r.parked = map[string]*childWait{}
	}
	r.parked[callID] = cw
}

// unpark moves the parked child of callID to the children the run waits
// for, and returns it (nil when the call parked none).
func (r *runner) unpark(callID string) *childWait {
	r.childMu.Lock()
	defer r.childMu.Unlock()
	cw := r.parked[callID]
	if cw == nil {
		return nil
	}
	delete(r.parked, callID)
	if r.waiting == nil {
		r.waiting = map[string]*childWait{}
	}
	r.waiting[callID] = cw
	return cw
}

// dropParked forgets children parked by calls whose returns did not pause
// the run (a hook replaced them): their child runs are abandoned.
func (r *runner) dropParked() {
	r.childMu.Lock()
	r.parked = nil
	r.childMu.Unlock()
}

// childResume is the answer to a waiting child: its state and the part of
// the parent's resolution that names its requests.
type childResume struct {
	wait *childWait
	res  Resolution
}

// childResumes hands the resumes of a batch's agent-tool calls to the
// calls, through their context; owner scopes them to the run whose calls
// they are (a grandchild's call may have the same id).
type childResumes struct {
	owner *runner
	calls map[string]*childResume
}

type childResumesKey struct{}

func withChildResumes(ctx context.Context, r *runner, calls map[string]*childResume) context.Context {
	if len(calls) == 0 {
		return ctx
	}
	return context.WithValue(ctx, childResumesKey{}, &childResumes{owner: r, calls: calls})
}

// childResumeOf returns the resume of call callID of run r, or nil when
// the call starts a new child run.
func childResumeOf(ctx context.Context, r *runner, callID string) *childResume {
	cr, _ := ctx.Value(childResumesKey{}).(*childResumes)
	if cr == nil || r == nil || cr.owner != r {
		return nil
	}
	return cr.calls[callID]
}

// childResolutions groups the answers to children's requests by the call
// of this run that ran the child. The answers keep the child's own ids.
func childResolutions(w *waitState, plan []resolved) (map[string]*childResume, error) {
	out := map[string]*childResume{}
	for _, p := range plan {
		callID := p.pending.ParentToolCallID
		if callID == "" {
			continue
		}
		cw := w.Children[callID]
		if cw == nil {
			return nil, fmt.Errorf("%w: pending %q names call %q, which has no waiting agent", ErrState, p.pending.ID, callID)
		}
		cr := out[callID]
		if cr == nil {
			cr = &childResume{wait: cw}
			out[callID] = cr
		}
		switch {
		case p.approval != nil:
			d := *p.approval
			d.ID = p.pending.ID
			cr.res.Approvals = append(cr.res.Approvals, d)
		case p.deferred != nil:
			d := *p.deferred
			d.ID = p.pending.ID
			cr.res.Deferred = append(cr.res.Deferred, d)
		}
	}
	return out, nil
}

// usageSince is what u adds to base.
func usageSince(u, base model.Usage) model.Usage {
	return model.Usage{
		Requests:         u.Requests - base.Requests,
		InputTokens:      u.InputTokens - base.InputTokens,
		OutputTokens:     u.OutputTokens - base.OutputTokens,
		ToolCalls:        u.ToolCalls - base.ToolCalls,
		CacheReadTokens:  u.CacheReadTokens - base.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens - base.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens - base.ReasoningTokens,
	}
}
