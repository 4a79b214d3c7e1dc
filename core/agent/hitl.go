package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/starweaver-go/starweaver/core/tool"
)

// ApprovalDecision answers a pending approval.
type ApprovalDecision struct {
	// ID is the approval id or the tool call id.
	ID       string `json:"id"`
	Approved bool   `json:"approved"`
	// DecidedBy and Reason are recorded in the approval metadata.
	DecidedBy string `json:"decided_by,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// OverrideArguments replace the call's arguments when approved.
	OverrideArguments json.RawMessage `json:"override_arguments,omitempty"`
	Metadata          map[string]any  `json:"metadata,omitempty"`
	// UserInput is what a person typed with the approval; the tool's
	// user-input preprocessor turns it into arguments and metadata.
	UserInput json.RawMessage `json:"user_input,omitempty"`
}

// Deferred result statuses.
const (
	DeferredCompleted = "completed"
	DeferredFailed    = "failed"
	DeferredCancelled = "cancelled"
)

// DeferredResult answers a pending deferred call.
type DeferredResult struct {
	// ID is the deferred id, the tool call id or, for a pending attempt
	// (tool.Pending), its completion key.
	ID       string          `json:"id"`
	Status   string          `json:"status"`
	Response json.RawMessage `json:"response,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

// Resolution answers every pending item of a waiting run at once.
type Resolution struct {
	Approvals []ApprovalDecision `json:"approvals"`
	Deferred  []DeferredResult   `json:"deferred_results"`
}

// Pending returns what the waiting run waits for (nil when not waiting).
func (s *Session) Pending() []Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting == nil {
		return nil
	}
	return append([]Pending(nil), s.waiting.Pending...)
}

// Resume answers a waiting run and continues it. Every pending item must
// be answered exactly once. An invalid resolution (unknown or duplicate
// ids, missing answers, a deferred status that does not exist, a session
// that is not waiting) fails with ErrState and changes nothing: the run
// stays waiting and resumable.
//
// Approved calls run again with tc.Approval set (override arguments and
// user-input preprocessing applied; hooks, validators, timeouts and retries
// as usual); denied calls never run and return approval_denied; deferred
// results become the calls' returns. The next model request carries the
// paused batch's returns in model order.
//
// With a session store, Resume first claims the waiting run in the store
// (see OpenSession): when another resume claimed it first, in this
// process or another, or the Session is an out-of-date copy, it fails
// with ErrState (ErrSessionConflict or ErrResumeClaimed) and runs nothing.
// A claimed resume that fails or is cancelled does not wait again: it
// keeps what it added, like a failed Run, since its approved calls may
// have run. Its end is saved as Run's is.
func (s *Session) Resume(ctx context.Context, res Resolution, opts ...RunOption) (*RunResult, error) {
	o, history, w, err := s.begin(opts)
	if err != nil {
		return nil, err
	}
	defer s.release()
	if w == nil {
		return nil, fmt.Errorf("%w: the session is not waiting for approvals or deferred results", ErrState)
	}
	plan, err := planResolution(w, res)
	if err != nil {
		return nil, err
	}
	durable := s.agent.sessions != nil
	if durable {
		if err := s.claim(ctx, w, res); err != nil {
			return nil, err
		}
	}
	r, err := newRunner(ctx, s, o, history)
	if err != nil {
		if durable {
			// Nothing ran: the run waits again.
			if uerr := s.unclaim(ctx, w); uerr != nil {
				return nil, fmt.Errorf("%w (and then %w)", err, uerr)
			}
		}
		return nil, err
	}
	defer r.finish()
	// A claimed run never waits for the same answers again (its approved
	// calls may have run): when it fails it ends like a failed Run.
	r.keepOnFail = durable
	r.runID, r.rc.RunID = w.RunID, w.RunID
	r.retries = maps.Clone(w.Retries)
	if r.retries == nil {
		r.retries = map[string]int{}
	}
	r.usage, r.usageBase = w.Usage, w.Usage
	r.childByAgent = maps.Clone(w.ChildUsage)
	r.publishUsage()
	if err := r.reenter(w.Agent); err != nil {
		return nil, err
	}
	out, err := r.resume(ctx, w, plan)
	return s.persist(ctx, out, err)
}

// resolved is the answer to one pending item, matched by planResolution.
type resolved struct {
	pending  Pending
	index    int // position of the call in the paused batch
	approval *ApprovalDecision
	deferred *DeferredResult
}

func planResolution(w *waitState, res Resolution) ([]resolved, error) {
	byID := map[string]int{}
	// A child's call may have the id of another call (each model picks
	// its own): such a tool call id names no item, its pending id does.
	ambiguous := map[string]bool{}
	for i, p := range w.Pending {
		if j, ok := byID[p.ToolCallID]; ok && j != i {
			ambiguous[p.ToolCallID] = true
		}
		byID[p.ToolCallID] = i
	}
	for i, p := range w.Pending {
		byID[p.ID] = i
		if p.CompletionKey != "" {
			byID[p.CompletionKey] = i
		}
	}
	answers := make([]*resolved, len(w.Pending))
	take := func(id, kind string) (int, error) {
		i, ok := byID[id]
		if !ok {
			return 0, fmt.Errorf("%w: no pending item has id %q", ErrState, id)
		}
		if ambiguous[id] && w.Pending[i].ID != id {
			return 0, fmt.Errorf("%w: tool call id %q names more than one pending item; answer each by its id", ErrState, id)
		}
		if w.Pending[i].Kind != kind {
			return 0, fmt.Errorf("%w: %q is a pending %s, not a %s", ErrState, id, w.Pending[i].Kind, kind)
		}
		if answers[i] != nil {
			return 0, fmt.Errorf("%w: %q is answered twice", ErrState, id)
		}
		answers[i] = &resolved{pending: w.Pending[i], index: pendingIndex(w, w.Pending[i])}
		return i, nil
	}
	for k := range res.Approvals {
		d := res.Approvals[k]
		// A malformed answer is reported as such before its id is looked up.
		if d.Approved && len(d.OverrideArguments) > 0 && !json.Valid(d.OverrideArguments) {
			return nil, fmt.Errorf("%w: override arguments of %q are not JSON", ErrInvalidDecision, d.ID)
		}
		i, err := take(d.ID, PendingApproval)
		if err != nil {
			return nil, err
		}
		answers[i].approval = &d
	}
	for k := range res.Deferred {
		d := res.Deferred[k]
		switch d.Status {
		case DeferredCompleted, DeferredFailed, DeferredCancelled:
		default:
			return nil, fmt.Errorf("%w: deferred status must be completed, failed or cancelled, got %q", ErrInvalidResult, d.Status)
		}
		if len(d.Response) > 0 && !json.Valid(d.Response) {
			return nil, fmt.Errorf("%w: deferred response of %q is not JSON", ErrInvalidResult, d.ID)
		}
		i, err := take(d.ID, PendingDeferred)
		if err != nil {
			return nil, err
		}
		answers[i].deferred = &d
	}
	out := make([]resolved, 0, len(answers))
	for i, a := range answers {
		if a == nil {
			return nil, fmt.Errorf("%w: pending %s %q has no answer; every pending item must be answered in one resume",
				ErrState, w.Pending[i].Kind, w.Pending[i].ID)
		}
		out = append(out, *a)
	}
	return out, nil
}

// pendingIndex is the position in the paused batch of the call p waits
// on: a child's request waits on the call that ran the child.
func pendingIndex(w *waitState, p Pending) int {
	if p.ParentToolCallID != "" {
		return callIndex(w.Calls, p.ParentToolCallID)
	}
	return callIndex(w.Calls, p.ToolCallID)
}

func callIndex(calls []tool.Call, id string) int {
	for i, c := range calls {
		if c.ID == id {
			return i
		}
	}
	return -1
}

// resume computes the returns of the answered items, then continues the
// loop with the paused batch's returns.
func (r *runner) resume(ctx context.Context, w *waitState, plan []resolved) (*RunResult, error) {
	step := w.Step
	r.rc.RunStep = step
	r.requested = step + 1
	if r.ts != nil {
		r.ts.resumed = true
		if err := r.prepareToolsets(ctx, step); err != nil {
			return r.failOrCancel(ctx, step, err)
		}
	}
	avail := r.reg.DefinitionsFor(&r.rc)
	prepared := r.prepared(avail)
	returns := append([]tool.Return(nil), w.Returns...)
	if r.spilled != nil {
		for i := range returns {
			r.spilled.addReturn(&returns[i])
		}
	}

	children, err := childResolutions(w, plan)
	if err != nil {
		return r.failOrCancel(ctx, step, err)
	}
	var approved []resolved
	for _, p := range plan {
		switch {
		case p.pending.ParentToolCallID != "":
			// The child's call runs again below, and resumes the child.
		case p.deferred != nil:
			returns[p.index] = deferredReturn(w.Calls[p.index], p.pending, *p.deferred)
		case !p.approval.Approved:
			returns[p.index] = deniedReturn(w.Calls[p.index], p.pending, *p.approval)
		default:
			approved = append(approved, p)
		}
	}
	r.runApproved(ctx, prepared, w, step, approved, children, returns)
	for _, p := range plan {
		ret := returns[p.index]
		r.emit(Event{Kind: EventHITLResolved, Step: step, Return: &ret, Custom: &CustomEvent{Kind: EventHITLResolved, Payload: map[string]any{
			"id": p.pending.ID, "kind": p.pending.Kind, "tool_call_id": p.pending.ToolCallID, "tool_name": p.pending.ToolName,
		}}})
	}
	next, res, err := r.settle(ctx, step, w.Calls, returns, func(i int) bool {
		for _, p := range plan {
			if p.index == i {
				return true
			}
		}
		return false
	})
	if res != nil {
		return res, err
	}
	return r.loop(ctx, next, step+1)
}

// runApproved re-executes approved calls with their approval attached, as
// one batch: ExecuteBatch's rules decide whether they run in parallel, as
// for any other batch of the run. User-input preprocessing runs first, in
// model order: it only turns what a person typed into arguments, and a
// call whose preprocessing fails does not run.
//
// The agent-tool calls whose children waited run again in the same batch,
// with children (their part of the resolution) in their context: each
// resumes its child where it stopped.
func (r *runner) runApproved(ctx context.Context, reg *tool.Registry, w *waitState, step int, approved []resolved, children map[string]*childResume, returns []tool.Return) {
	n := len(approved) + len(children)
	calls := make([]tool.Call, 0, n)
	bases := make([]*tool.Context, 0, n)
	at := make([]int, 0, n) // position of each call in returns
	overridden := make([]bool, 0, n)
	for i, call := range w.Calls {
		if children[call.ID] == nil {
			continue
		}
		call.Index = i
		calls = append(calls, call)
		bases = append(bases, r.baseContext(step))
		at = append(at, i)
		overridden = append(overridden, false)
	}
	resumed := len(calls) // the first calls resume children
	for _, p := range approved {
		call := w.Calls[p.index]
		call.Index = p.index // a state saved before calls carried it
		d := p.approval
		md := maps.Clone(d.Metadata)
		if md == nil {
			md = map[string]any{}
		}
		if d.DecidedBy != "" {
			md[tool.MetaDecidedBy] = d.DecidedBy
		}
		if d.Reason != "" {
			md["reason"] = d.Reason
		}
		approval := &tool.Approval{Status: "approved", OverrideArguments: d.OverrideArguments, Arguments: call.Arguments, Metadata: md}
		base := r.baseContext(step)
		base.Approval = approval
		if len(d.UserInput) > 0 {
			if t, ok := reg.Tool(call.Name); ok {
				if pre := tool.ConfigOf(t).PreprocessUserInput; pre != nil {
					// The preprocessor gets the authority its tool's
					// profile allows, as the tool's calls do.
					out, err := pre(ctx, reg.CallContext(base, call), d.UserInput)
					if err != nil {
						returns[p.index] = resolvedReturn(tool.ErrorReturn(call, err))
						continue
					}
					if len(out.OverrideArguments) > 0 {
						approval.OverrideArguments = out.OverrideArguments
					}
					maps.Copy(md, out.Metadata)
				}
			}
		}
		over := len(approval.OverrideArguments) > 0
		if over {
			call.Arguments = approval.OverrideArguments
		}
		calls = append(calls, call)
		bases = append(bases, base)
		at = append(at, p.index)
		overridden = append(overridden, over)
	}
	if len(calls) == 0 {
		return
	}
	var rets []tool.Return
	if r.o.executor != nil {
		rets = r.offload(ctx, reg, bases[0], bases, calls)
	} else {
		rets = reg.ExecuteBatch(withChildResumes(withRunner(ctx, r), r, children), nil, calls, tool.BatchOptions{
			Sequential: r.a.sequential, MaxConcurrency: r.a.maxConcurrency, Retries: r.retries, Bases: bases,
			CallContext: batchContext(r.trace),
		})
	}
	for i, ret := range rets {
		if overridden[i] && ret.ErrorKind() == tool.ErrorKindInvalidArguments {
			// A person wrote these arguments: the model cannot correct them,
			// so they must not spend its correction budget.
			msg, _ := ret.Metadata[tool.MetaMessage].(string)
			ret = tool.ErrorReturn(calls[i], tool.UserError("override arguments rejected: %s", msg))
		}
		if i < resumed {
			returns[at[i]] = ret
			continue
		}
		returns[at[i]] = resolvedReturn(ret)
	}
}

// deniedReturn is the return of a denied call: an approval_denied error
// built like every other tool error (tool.ErrorReturn), plus the approval's
// state and the call's identity.
func deniedReturn(call tool.Call, p Pending, d ApprovalDecision) tool.Return {
	msg := d.Reason
	if msg == "" {
		msg = "User denied the tool call."
	}
	ret := tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindApprovalDenied, Message: msg})
	md := ret.Metadata
	md[tool.MetaApprovalState] = "denied"
	md[tool.MetaHITLState] = "resolved"
	md[tool.MetaApprovalID] = p.ID
	if d.DecidedBy != "" {
		md[tool.MetaDecidedBy] = d.DecidedBy
	}
	if len(d.Metadata) > 0 {
		md[tool.MetaApprovalMetadata] = maps.Clone(d.Metadata)
	}
	content := ret.Content.(map[string]any)
	content["tool_call_id"] = call.ID
	content["tool_name"] = call.Name
	return ret
}

// deferredReturn is the return of a resolved deferred call: its response
// when it completed, otherwise a deferred_failed or deferred_cancelled
// error built like every other tool error.
func deferredReturn(call tool.Call, p Pending, d DeferredResult) tool.Return {
	var response any
	if len(d.Response) > 0 {
		response = d.Response
	}
	var ret tool.Return
	if d.Status == DeferredCompleted {
		if response == nil {
			response = json.RawMessage("null")
		}
		ret = tool.Return{ToolCallID: call.ID, Name: call.Name, Content: response, Metadata: map[string]any{}}
	} else {
		e := &tool.Error{Kind: tool.ErrorKindDeferredFailed, Message: "the deferred work failed"}
		if d.Status == DeferredCancelled {
			e = &tool.Error{Kind: tool.ErrorKindDeferredCancelled, Message: "the deferred work was cancelled"}
		}
		ret = tool.ErrorReturn(call, e)
		content := ret.Content.(map[string]any)
		content["status"] = d.Status
		content["response"] = response
	}
	md := ret.Metadata
	md[tool.MetaHITLState] = "resolved"
	md[tool.MetaDeferredID] = p.ID
	md[tool.MetaDeferredStatus] = d.Status
	if len(d.Metadata) > 0 {
		md[tool.MetaDeferredMetadata] = maps.Clone(d.Metadata)
	}
	return ret
}

// resolvedReturn marks the return of an approved call.
func resolvedReturn(ret tool.Return) tool.Return {
	if ret.Metadata == nil {
		ret.Metadata = map[string]any{}
	} else {
		ret.Metadata = maps.Clone(ret.Metadata)
	}
	ret.Metadata[tool.MetaHITLState] = "resolved"
	ret.Metadata[tool.MetaApprovalState] = "approved"
	return ret
}
