package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/internal/effectclass"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Executor carries out a run's model requests and batches of tool calls
// outside the run: as a durable engine's activities (core/temporal), on
// other workers. The run's loop stays where it is and decides every next
// step from what the executor answers, and from nothing else that
// changes between two drives of the run: no clock, no random id (with
// WithRunID and a session made by SessionWithID). So a run driven again
// with the same answers makes the same requests in the same order, which
// is what an engine that replays its workflows needs.
//
// The loop, not the executor, keeps every rule of a run: output
// validation, usage limits, correction budgets, approvals and deferred
// calls, steering, the order of returns in history. The executor only
// moves work: the worker that receives it runs it with Agent.RequestModel
// and Agent.RunBatch, which do what the run would have done here.
//
// With an executor, a response is never streamed and no call starts while
// it arrives (the executor answers whole responses).
type Executor interface {
	// RequestModel makes one model request and returns the response.
	RequestModel(ctx context.Context, req ModelRequest) (model.Message, error)
	// RunBatch runs a batch's calls and returns one return per call, in
	// the batch's order. A call lost with its worker gets LostReturn; an
	// error gives every call of the batch that return.
	RunBatch(ctx context.Context, b Batch) ([]tool.Return, error)
}

// ModelRequest is one model request of a run handed to an Executor.
type ModelRequest struct {
	RunID string `json:"run_id"`
	Step  int    `json:"step"`
	// Messages are the model-visible projection of the history.
	Messages []model.Message `json:"messages"`
	Params   model.Params    `json:"params"`
	// Agent names the agent answering after a handoff (see Handoff); ""
	// for the run's own agent.
	Agent string `json:"agent,omitempty"`
}

// Batch is a batch of calls of a run handed to an Executor.
type Batch struct {
	RunID          string         `json:"run_id"`
	ConversationID string         `json:"conversation_id"`
	Step           int            `json:"step"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	// Retries are the model corrections the run spent so far, per tool.
	Retries map[string]int `json:"retries,omitempty"`
	// Sequential: the calls must run one after another, in order (the
	// registry's scheduling rules decided it); otherwise they may run in
	// parallel, at most MaxConcurrency at once when it is positive.
	Sequential     bool   `json:"sequential,omitempty"`
	MaxConcurrency int    `json:"max_concurrency,omitempty"`
	Calls          []Call `json:"calls"`
	// Spilled are the outputs the conversation spilled so far (see
	// Options.Artifacts): the only artifacts read_artifact may read.
	Spilled []artifact.Ref `json:"spilled,omitempty"`
	// Agent names the agent answering after a handoff (see Handoff); ""
	// for the run's own agent.
	Agent string `json:"agent,omitempty"`
}

// Call is one call of a Batch with what its executor needs to plan it.
type Call struct {
	tool.Call
	// Effect is the tool's effect class.
	Effect tool.EffectClass `json:"effect,omitempty"`
	// Timeout bounds one attempt (tool > toolset > registry); 0: none.
	Timeout time.Duration `json:"timeout,omitempty"`
	// MaxRetries is the tool's budget of internal re-executions.
	MaxRetries int `json:"max_retries"`
	// RetrySafe: the call may run again when an attempt's outcome is
	// unknown (its worker was lost). Pure, read-only and undeclared tools
	// may; an idempotent write may, with its idempotency key; every other
	// class gets one attempt, and a lost one gets LostReturn.
	RetrySafe bool `json:"retry_safe"`
	// Key is the call's idempotency key (tool.Context.IdempotencyKey).
	Key string `json:"key"`
	// Approval is set on an approved call that runs again.
	Approval *tool.Approval `json:"approval,omitempty"`
	// Child is set on a call of an agent tool or of spawn_agent that an
	// engine may run as a child run of its own (see ChildRun): nothing
	// the call's tool has around it (hooks, an approval rule, a
	// concurrency cap across runs) would run otherwise. An executor that
	// does not run agents ignores it.
	Child *ChildRun `json:"child,omitempty"`
}

// AttemptBound is how long all attempts of c may take together: its
// timeout for each internal attempt, or 0 when the tool has no timeout.
func (c Call) AttemptBound() time.Duration {
	if c.Timeout <= 0 {
		return 0
	}
	return c.Timeout * time.Duration(c.MaxRetries+1)
}

// LostReturn is the return of a call whose worker was lost while it ran,
// or before: it may have run or not, and it is not run again. It is the
// return a local recovery gives (Session.AbandonInFlight), so the model
// reads the same thing whichever way the call was lost.
func LostReturn(c tool.Call) tool.Return {
	return tool.ErrorReturn(c, tool.Cancelled("the run was interrupted while this call ran or was about to run "+
		"(its worker stopped), so it may have run or not; check its effect before calling it again"))
}

// WithExecutor hands the run's model requests and tool batches to x (see
// Executor).
func WithExecutor(x Executor) RunOption {
	return func(o *runOptions) { o.executor = x }
}

// WithRunID gives the run the id id instead of a random one, so a run
// driven again (see Executor) has the same id, idempotency keys and
// pending ids. It has no effect on a resumed run, which keeps its own.
func WithRunID(id string) RunOption {
	return func(o *runOptions) { o.runID = id }
}

// SessionWithID starts a conversation whose id is id rather than a random
// one (see Executor), continuing history when it is not empty (as
// SessionFromMessages does).
func (a *Agent) SessionWithID(id string, history []model.Message) (*Session, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: a session id must not be empty", ErrConfig)
	}
	if err := ValidateHistory(history); err != nil {
		return nil, err
	}
	return &Session{agent: a, id: id, history: model.CloneMessages(history), actx: a.newContext()}, nil
}

// askExecutor is ask for a run with an executor. The messages keep their
// artifact references: the worker reads the artifacts (RequestModel), so
// their bytes never travel with the request, and the run reads no store.
func (r *runner) askExecutor(ctx context.Context, step int, params model.Params) (model.Message, error) {
	msgs, err := r.a.processHistory(ctx, r.modelMessages())
	if err != nil {
		return model.Message{}, err
	}
	// An executor that asks the model in this process reports its
	// fallback's attempts as they fail; one that asks elsewhere does not,
	// and the loop emits them once the request ends.
	resp, err := r.o.executor.RequestModel(r.relay.into(ctx), ModelRequest{RunID: r.runID, Step: step, Messages: msgs, Params: params, Agent: r.answering()})
	if err == nil && r.o.deltas {
		r.emitWhole(step, resp)
	}
	return resp, err
}

// offload runs calls through the run's executor. A call the registry
// refuses (an unknown or ungranted name) is answered here, since nothing
// runs for it. bases, when set, are the calls' own base contexts (approved
// calls carry their approval).
func (r *runner) offload(ctx context.Context, reg *tool.Registry, base *tool.Context, bases []*tool.Context, calls []tool.Call) []tool.Return {
	out := make([]tool.Return, len(calls))
	b := Batch{RunID: r.runID, ConversationID: r.s.id, Step: base.RunStep, Metadata: r.rc.Metadata,
		Retries: maps.Clone(r.retries), MaxConcurrency: r.a.maxConcurrency,
		Sequential: reg.SequentialReason(calls, r.a.sequential) != "", Agent: r.answering()}
	at := make([]int, 0, len(calls))
	for i, c := range calls {
		cb := base
		if bases != nil {
			cb = bases[i]
		}
		if _, ok := reg.Tool(c.Name); !ok || reg.Refused(c.Name) {
			out[i] = reg.Execute(ctx, cb, c)
			continue
		}
		cls := reg.EffectOf(c.Name)
		b.Calls = append(b.Calls, Call{Call: c, Effect: cls, Timeout: reg.TimeoutFor(c.Name), MaxRetries: reg.MaxRetriesFor(c.Name),
			RetrySafe: effectclass.RetrySafe(cls, true), Key: effectclass.Key(r.s.id, r.runID, cb.RunStep, c.Index), Approval: cb.Approval,
			Child: r.childRunOf(reg, c)})
		at = append(at, i)
	}
	if len(b.Calls) == 0 {
		return out
	}
	if r.spilled != nil {
		b.Spilled = r.spilled.list()
	}
	// The executor reaches the run through ctx (ChildReturn).
	rets, err := r.o.executor.RunBatch(withRunner(ctx, r), b)
	if err == nil && len(rets) != len(b.Calls) {
		err = fmt.Errorf("%w: the executor answered %d returns for %d calls", ErrState, len(rets), len(b.Calls))
	}
	for j, i := range at {
		if err != nil {
			out[i] = LostReturn(calls[i])
			continue
		}
		ret := rets[j]
		// The return answers its own call whatever the executor wrote.
		ret.ToolCallID, ret.Name = calls[i].ID, calls[i].Name
		if r.spilled != nil {
			// Spilled by the worker (RunBatch): later batches may read it.
			r.spilled.addReturn(&ret)
		}
		out[i] = ret
	}
	return out
}

// RequestModel makes req with the agent's model: what a run with an
// executor asks its executor to do (see Executor). The artifacts the
// messages refer to are read here, from the agent's store.
func (a *Agent) RequestModel(ctx context.Context, req ModelRequest) (model.Message, error) {
	if req.Agent != "" {
		to := a.findAgent(req.Agent)
		if to == nil {
			return model.Message{}, fmt.Errorf("%w: the request is for agent %q, which this agent does not hand off to", ErrHandoff, req.Agent)
		}
		a = to
	}
	msgs, err := a.resolveArtifacts(ctx, req.Messages)
	if err != nil {
		return model.Message{}, err
	}
	resp, err := a.model.Request(ctx, msgs, req.Params)
	if err != nil {
		return model.Message{}, asModelError(err)
	}
	return resp, nil
}

// RunBatch runs a batch a run handed its executor on this process's tools,
// as the run would have run it (hooks, validation, timeouts, internal
// retries, approvals, journal): what the executor's worker does with it. A
// batch of one call is how an engine runs each call as its own activity.
// An output over the agent's output budget is spilled here (see
// Options.Artifacts), so only its reference travels back.
// deps, when not nil, are the run's dependencies (else the agent's).
func (a *Agent) RunBatch(ctx context.Context, b Batch, deps *tool.Deps) ([]tool.Return, error) {
	if b.RunID == "" || b.ConversationID == "" || b.Step < 0 {
		return nil, fmt.Errorf("%w: a batch needs its run id, conversation id and step", ErrState)
	}
	s, err := a.SessionWithID(b.ConversationID, nil)
	if err != nil {
		return nil, err
	}
	o := &runOptions{metadata: b.Metadata, deps: deps, runID: b.RunID}
	r, err := newRunner(ctx, s, o, transcript{})
	if err != nil {
		return nil, err
	}
	defer r.finish()
	if err := r.reenter(b.Agent); err != nil {
		return nil, err
	}
	r.rc.RunStep = b.Step
	if r.ts != nil {
		if err := r.prepareToolsets(ctx, b.Step); err != nil {
			return nil, err
		}
	}
	maps.Copy(r.retries, b.Retries)
	if r.spilled != nil {
		for _, ref := range b.Spilled {
			r.spilled.add(ref)
		}
	}
	calls := make([]tool.Call, len(b.Calls))
	bases := make([]*tool.Context, len(b.Calls))
	for i, c := range b.Calls {
		calls[i] = c.Call
		bases[i] = r.baseContext(b.Step)
		bases[i].Approval = c.Approval
	}
	rets := r.reg.ExecuteBatch(ctx, nil, calls, tool.BatchOptions{Sequential: b.Sequential || r.a.sequential,
		MaxConcurrency: r.a.maxConcurrency, Retries: r.retries, Bases: bases})
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return rets, err
	}
	if r.spilled != nil {
		for i := range rets {
			// A spill that fails leaves the return whole: the run spills
			// it then, or reports why it could not.
			_ = r.spill(ctx, &rets[i])
		}
	}
	return rets, nil
}
