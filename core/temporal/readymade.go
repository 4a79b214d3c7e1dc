package temporal

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The ready-made workflow's updates and query.
const (
	// UpdateApprove approves one pending approval: its argument is an
	// agent.ApprovalDecision (Approved is implied).
	UpdateApprove = "approve"
	// UpdateDeny denies one pending approval: an agent.ApprovalDecision
	// (Approved is ignored).
	UpdateDeny = "deny"
	// UpdateComplete gives one pending deferred call its result: an
	// agent.DeferredResult.
	UpdateComplete = "complete"
	// QueryPending answers the pending items not answered yet
	// ([]agent.Pending; empty while the run runs).
	QueryPending = "pending"
)

// ErrorTypeRunFailed is the application error type of a ready-made workflow
// whose run failed or was cancelled; its details hold the Result.
const ErrorTypeRunFailed = "starweaver.run_failed"

// WorkflowInput is the ready-made workflow's input.
type WorkflowInput struct {
	Prompt string `json:"prompt"`
	// MessageHistory continues an earlier conversation (WithMessageHistory).
	MessageHistory []model.Message    `json:"message_history,omitempty"`
	Metadata       map[string]any     `json:"metadata,omitempty"`
	UsageLimits    *agent.UsageLimits `json:"usage_limits,omitempty"`
}

// Workflow is the ready-made workflow (Register names it WorkflowName):
// it runs the agent on the input's prompt; while the run waits it takes
// one answer per update (approve, deny, complete) for as long as that
// takes, then resumes the run with all of them, until the run completes.
// An update for something that is not pending now is rejected (and not
// recorded); each accepted update returns the items still pending.
//
// A completed run is the workflow's result; a failed or cancelled one
// fails the workflow with an application error of type ErrorTypeRunFailed
// whose details are the Result.
func (t *Agent) Workflow(ctx workflow.Context, in WorkflowInput) (*Result, error) {
	w := &answers{}
	if err := w.register(ctx); err != nil {
		return nil, err
	}
	var opts []RunOption
	if len(in.MessageHistory) > 0 {
		opts = append(opts, WithMessageHistory(in.MessageHistory))
	}
	if in.Metadata != nil {
		opts = append(opts, WithMetadata(in.Metadata))
	}
	if in.UsageLimits != nil {
		opts = append(opts, WithUsageLimits(*in.UsageLimits))
	}
	res, err := t.Run(ctx, in.Prompt, opts...)
	for err == nil && res.Status == agent.StatusWaiting {
		w.wait(res.Pending)
		if err := workflow.Await(ctx, w.complete); err != nil {
			return nil, err
		}
		next, rerr := t.Resume(ctx, res, w.resolution(), opts...)
		if next == nil && errors.Is(rerr, agent.ErrState) {
			// Nothing ran (the updates' validators should have made this
			// unreachable): the run waits for answers again.
			workflow.GetLogger(ctx).Warn("starweaver: the answers were refused; waiting for new ones", "error", rerr)
			continue
		}
		res, err = next, rerr
	}
	w.wait(nil)
	if err != nil {
		if res == nil {
			return nil, err
		}
		return nil, sdktemporal.NewNonRetryableApplicationError(res.Error, ErrorTypeRunFailed, nil, res)
	}
	return res, nil
}

// answers collects the answers to a waiting run, one update at a time.
// It lives in one workflow execution: its handlers run in that
// workflow's coroutines, one at a time.
type answers struct {
	pending   []agent.Pending
	approvals []*agent.ApprovalDecision
	deferred  []*agent.DeferredResult
	// children are the waiting child workflows of this one's run (see
	// ChildWorkflow), by workflow id, in the order they first waited.
	children map[string][]agent.Pending
	order    []string
	// parent is the workflow this one is a child of ("" for none): it
	// hears of every change of what this one waits for.
	parent string
	// label and callID name this one in its parent's pending items.
	label, callID string
}

// Signals between a parent's and its children's workflows, which relay
// what the children wait for up and the answers down.
const (
	signalChildPending = "starweaver.child_pending"
	signalAnswer       = "starweaver.answer"
)

// childPending tells a parent what one of its child workflows waits for
// now (nothing: it waits no more).
type childPending struct {
	WorkflowID string          `json:"workflow_id"`
	Agent      string          `json:"agent"`
	CallID     string          `json:"call_id"`
	Pending    []agent.Pending `json:"pending"`
}

// answer is an answer relayed to the child workflow that waits for it.
type answer struct {
	Approval *agent.ApprovalDecision `json:"approval,omitempty"`
	Deferred *agent.DeferredResult   `json:"deferred,omitempty"`
}

func (w *answers) register(ctx workflow.Context) error {
	if p := workflow.GetInfo(ctx).ParentWorkflowExecution; p != nil && w.label != "" {
		w.parent = p.ID
	}
	approve := func(approved bool) func(workflow.Context, agent.ApprovalDecision) ([]agent.Pending, error) {
		return func(ctx workflow.Context, d agent.ApprovalDecision) ([]agent.Pending, error) {
			d.Approved = approved
			if err := w.take(ctx, answer{Approval: &d}); err != nil {
				return nil, err
			}
			return w.open(), nil
		}
	}
	validApproval := func(_ workflow.Context, d agent.ApprovalDecision) error {
		if len(d.OverrideArguments) > 0 && !json.Valid(d.OverrideArguments) {
			return fmt.Errorf("%w: override arguments of %q are not JSON", agent.ErrInvalidDecision, d.ID)
		}
		_, _, err := w.find(d.ID, agent.PendingApproval)
		return err
	}
	for _, u := range []struct {
		name     string
		approved bool
	}{{UpdateApprove, true}, {UpdateDeny, false}} {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, u.name, approve(u.approved),
			workflow.UpdateHandlerOptions{Validator: validApproval}); err != nil {
			return fmt.Errorf("temporal: registering update %q: %w", u.name, err)
		}
	}
	complete := func(ctx workflow.Context, d agent.DeferredResult) ([]agent.Pending, error) {
		if err := w.take(ctx, answer{Deferred: &d}); err != nil {
			return nil, err
		}
		return w.open(), nil
	}
	validDeferred := func(_ workflow.Context, d agent.DeferredResult) error {
		switch d.Status {
		case agent.DeferredCompleted, agent.DeferredFailed, agent.DeferredCancelled:
		default:
			return fmt.Errorf("%w: deferred status must be completed, failed or cancelled, got %q", agent.ErrInvalidResult, d.Status)
		}
		if len(d.Response) > 0 && !json.Valid(d.Response) {
			return fmt.Errorf("%w: deferred response of %q is not JSON", agent.ErrInvalidResult, d.ID)
		}
		_, _, err := w.find(d.ID, agent.PendingDeferred)
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateComplete, complete,
		workflow.UpdateHandlerOptions{Validator: validDeferred}); err != nil {
		return fmt.Errorf("temporal: registering update %q: %w", UpdateComplete, err)
	}
	if err := workflow.SetQueryHandler(ctx, QueryPending, func() ([]agent.Pending, error) { return w.open(), nil }); err != nil {
		return fmt.Errorf("temporal: registering query %q: %w", QueryPending, err)
	}
	// The relay: children tell what they wait for, a parent relays
	// answers. Both arrive as signals, taken in the order received.
	workflow.Go(ctx, func(ctx workflow.Context) {
		waits := workflow.GetSignalChannel(ctx, signalChildPending)
		answers := workflow.GetSignalChannel(ctx, signalAnswer)
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(waits, func(c workflow.ReceiveChannel, _ bool) {
				var m childPending
				c.Receive(ctx, &m)
				w.childWaits(ctx, m)
			})
			sel.AddReceive(answers, func(c workflow.ReceiveChannel, _ bool) {
				var a answer
				c.Receive(ctx, &a)
				if err := w.take(ctx, a); err != nil {
					workflow.GetLogger(ctx).Warn("starweaver: a relayed answer was refused", "error", err)
				}
			})
			sel.Select(ctx)
		}
	})
	return nil
}

// take records a, or relays it to the child workflow that waits for it.
func (w *answers) take(ctx workflow.Context, a answer) error {
	id, kind := "", agent.PendingDeferred
	if a.Approval != nil {
		id, kind = a.Approval.ID, agent.PendingApproval
	} else if a.Deferred != nil {
		id = a.Deferred.ID
	}
	i, child, err := w.find(id, kind)
	if err != nil {
		return err
	}
	if child != "" {
		// The child answers it; it is no longer this one's to answer.
		items := w.children[child]
		w.children[child] = append(items[:i:i], items[i+1:]...)
		w.publish(ctx)
		if err := workflow.SignalExternalWorkflow(ctx, child, "", signalAnswer, a).Get(ctx, nil); err != nil {
			return fmt.Errorf("temporal: relaying the answer to %q to its child workflow: %w", id, err)
		}
		return nil
	}
	if a.Approval != nil {
		w.approvals[i] = a.Approval
	} else {
		w.deferred[i] = a.Deferred
	}
	w.publish(ctx)
	return nil
}

// childWaits records what a child workflow waits for now, as this
// run's own child requests read (the child's agent first in Path).
func (w *answers) childWaits(ctx workflow.Context, m childPending) {
	if w.children == nil {
		w.children = map[string][]agent.Pending{}
	}
	if _, ok := w.children[m.WorkflowID]; !ok {
		w.order = append(w.order, m.WorkflowID)
	}
	items := make([]agent.Pending, len(m.Pending))
	for i, p := range m.Pending {
		p.Path = append([]string{m.Agent}, p.Path...)
		p.ParentToolCallID = m.CallID
		items[i] = p
	}
	w.children[m.WorkflowID] = items
	w.publish(ctx)
}

// publish tells the parent workflow, if any, what this one waits for.
func (w *answers) publish(ctx workflow.Context) {
	if w.parent == "" {
		return
	}
	m := childPending{WorkflowID: workflow.GetInfo(ctx).WorkflowExecution.ID, Agent: w.label, CallID: w.callID, Pending: w.open()}
	if err := workflow.SignalExternalWorkflow(ctx, w.parent, "", signalChildPending, m).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("starweaver: telling the parent workflow what this run waits for failed", "error", err)
	}
}

// wait starts collecting answers to pending (nil: the run is not
// waiting).
func (w *answers) wait(pending []agent.Pending) {
	w.pending = pending
	w.approvals = make([]*agent.ApprovalDecision, len(pending))
	w.deferred = make([]*agent.DeferredResult, len(pending))
}

// find locates the unanswered pending item of kind named id (its id or
// its tool call id): its index in this run's items, or in those of the
// child workflow child.
func (w *answers) find(id, kind string) (i int, child string, err error) {
	for _, c := range w.order {
		for i, p := range w.children[c] {
			if p.ID != id && p.ToolCallID != id {
				continue
			}
			if p.Kind != kind {
				return 0, "", fmt.Errorf("%w: %q is a pending %s, not a %s", agent.ErrState, id, p.Kind, kind)
			}
			return i, c, nil
		}
	}
	if len(w.pending) == 0 {
		return 0, "", fmt.Errorf("%w: the run is not waiting for answers", agent.ErrState)
	}
	for i, p := range w.pending {
		if p.ID != id && p.ToolCallID != id && (p.CompletionKey == "" || p.CompletionKey != id) {
			continue
		}
		if p.Kind != kind {
			return 0, "", fmt.Errorf("%w: %q is a pending %s, not a %s", agent.ErrState, id, p.Kind, kind)
		}
		if w.approvals[i] != nil || w.deferred[i] != nil {
			return 0, "", fmt.Errorf("%w: %q is answered already", agent.ErrState, id)
		}
		return i, "", nil
	}
	return 0, "", fmt.Errorf("%w: no pending item has id %q", agent.ErrState, id)
}

// open lists the pending items without an answer: this run's, then its
// waiting children's.
func (w *answers) open() []agent.Pending {
	out := []agent.Pending{}
	for i, p := range w.pending {
		if w.approvals[i] == nil && w.deferred[i] == nil {
			out = append(out, p)
		}
	}
	for _, c := range w.order {
		out = append(out, w.children[c]...)
	}
	return out
}

// complete: every item of this run's own is answered.
func (w *answers) complete() bool {
	if len(w.pending) == 0 {
		return false
	}
	for i := range w.pending {
		if w.approvals[i] == nil && w.deferred[i] == nil {
			return false
		}
	}
	return true
}

func (w *answers) resolution() agent.Resolution {
	var r agent.Resolution
	for i := range w.pending {
		if d := w.approvals[i]; d != nil {
			r.Approvals = append(r.Approvals, *d)
		}
		if d := w.deferred[i]; d != nil {
			r.Deferred = append(r.Deferred, *d)
		}
	}
	return r
}
