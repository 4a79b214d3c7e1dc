package agent

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Runs in flight and their recovery, for an agent with a session store
// (Builder.SessionStore), with or without an effect journal
// (Builder.EffectJournal).
//
// Before a run executes a batch of calls, it saves the session with a
// checkpoint of the run (the history up to the response that made the
// calls, the calls, the run's id, step, usage and budgets), with the same
// compare-and-swap as a run's end; the run's next save (its end, or the
// next batch's checkpoint) replaces it. A worker that stops while the calls
// run, or later in the run, leaves that checkpoint in the store: a session
// loaded from it reports the run (InFlight) and refuses runs and resumes
// (ErrRunInFlight) until the run is settled, so the calls that may have run
// are never silently forgotten. Without a journal nothing says which of
// them ran: AbandonInFlight closes the run, telling the model that each of
// its calls may have run. With a journal, Recover continues it instead
// (AbandonInFlight works too): the checkpointed calls run again through the journal
// under the same keys, so a call that completed replays its return, one
// that started and never finished is ambiguous (unless the journal's
// recovery policy or reconciler settles it), and one that never started
// runs; then the run goes on as it would have.
//
// Recover claims the session with a compare-and-swap before it runs
// anything, so of two workers recovering the same loaded state one goes
// on and the other gets ErrSessionConflict. There are no leases: a worker
// that loads the session after another claimed it may recover it too; the
// journal still runs each effect at most once, and the compare-and-swap of
// the sessions' saves keeps one outcome.

// ErrRunInFlight: the session holds a run that its worker left in flight
// (it stopped while the run's calls ran, or later), so it refuses to run or
// resume until Session.Recover continues that run. It matches ErrState.
var ErrRunInFlight = fmt.Errorf("%w: the session has a run in flight", ErrState)

// inFlight is the checkpoint of a run about to execute a batch of calls
// (sessionState.InFlight).
type inFlight struct {
	RunID string `json:"run_id"`
	Step  int    `json:"step"`
	// Calls are the batch's calls, positions included; Retry is what the
	// request after their returns carries besides them (an output retry).
	Calls []tool.Call    `json:"calls"`
	Retry []model.Part   `json:"retry,omitempty"`
	Start int            `json:"start"` // messages before the run began
	Usage model.Usage    `json:"usage"`
	Tries map[string]int `json:"retries"`
	// OutputRetries counts the run's output corrections so far.
	OutputRetries int `json:"output_retries,omitempty"`
	// Recoveries counts the recoveries claimed so far.
	Recoveries int `json:"recoveries,omitempty"`
	// Agent names the agent answering when the run was handed off (see
	// Handoff); "" for the session's agent.
	Agent string `json:"agent,omitempty"`
}

// InFlightRun describes a run a stopped worker left in flight (see
// Session.Recover).
type InFlightRun struct {
	RunID string
	// Step is the run's step whose calls were running.
	Step int
	// Calls are those calls, in model order.
	Calls []tool.Call
	// Recoveries counts the recoveries claimed so far (0: none).
	Recoveries int
}

// InFlight reports the run a stopped worker left in flight in a session
// loaded in that state (see Recover); ok is false otherwise.
func (s *Session) InFlight() (r InFlightRun, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.inflight
	if f == nil {
		return InFlightRun{}, false
	}
	return InFlightRun{RunID: f.RunID, Step: f.Step, Calls: append([]tool.Call(nil), f.Calls...), Recoveries: f.Recoveries}, true
}

// inFlightError is why a session with a run in flight refuses to run;
// journaled tells whether the agent could recover it.
func inFlightError(f *inFlight, journaled bool) error {
	what := "continue it with Session.Recover, or close it with Session.AbandonInFlight"
	if !journaled {
		what = "without an effect journal nothing says whether they ran: close the run with Session.AbandonInFlight " +
			"(the model is told each call may have run) after checking their effects"
	}
	return fmt.Errorf("%w: run %s stopped at step %d while its tool calls (%s) ran or were about to run (its worker stopped); %s",
		ErrRunInFlight, f.RunID, f.Step, callNames(f.Calls), what)
}

// callNames lists calls as "name (id)" for messages.
func callNames(calls []tool.Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", c.Name, c.ID)
	}
	return b.String()
}

// AbandonInFlight settles a run its worker left in flight (see InFlight)
// without running anything: it closes the run's batch of calls with a
// cancelled return each, saying that the call may have run and that its
// effect should be checked before calling it again, and saves the session
// as idle, so the next Run continues the conversation. It is how a session
// of an agent without an effect journal goes on after its worker stopped
// mid-run; with a journal, Recover finishes the run instead.
//
// Abandoning a run whose worker is in fact still running makes that
// worker's next save fail with ErrSessionConflict; the store keeps the
// abandonment. A session without a run in flight fails with ErrState.
func (s *Session) AbandonInFlight(ctx context.Context) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.mu.Lock()
	f, history, stale := s.inflight, s.history, s.stale
	s.mu.Unlock()
	if stale != nil {
		return staleError(stale)
	}
	if f == nil {
		return fmt.Errorf("%w: the session has no run in flight to abandon", ErrState)
	}
	next := append(clip(history), interrupted(f))
	if s.agent.sessions != nil {
		if err := s.checkRecord(ctx); err != nil {
			return err
		}
		if err := s.put(ctx, sessionState{ConversationID: s.id, Messages: next, Context: s.contextState(), Environment: s.environmentState()}, "abandoning the run in flight of session"); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.history, s.inflight = next, nil
	s.mu.Unlock()
	return nil
}

// interrupted is the request that closes the batch of an abandoned run in
// flight (see AbandonInFlight).
func interrupted(f *inFlight) model.Message {
	m := model.Message{Kind: model.KindRequest, RunID: f.RunID, Parts: make([]model.Part, 0, len(f.Calls))}
	for _, c := range f.Calls {
		m.Parts = append(m.Parts, model.ToolReturn(LostReturn(c)))
	}
	return m
}

// checkInFlight verifies that a restored checkpoint is consistent with the
// history: its calls are calls of the last response.
func checkInFlight(f *inFlight, history []model.Message) error {
	if f.RunID == "" || f.Step < 0 || len(f.Calls) == 0 || f.Start < 0 || f.Start > len(history) || len(history) == 0 {
		return fmt.Errorf("%w: session state has a malformed run in flight", ErrState)
	}
	last := history[len(history)-1]
	made := map[string]string{}
	for _, c := range last.ToolCalls() {
		made[c.ID] = c.Name
	}
	for _, c := range f.Calls {
		if name, ok := made[c.ID]; !ok || name != c.Name {
			return fmt.Errorf("%w: the run in flight names call %q, which its last response did not make", ErrState, c.ID)
		}
	}
	return nil
}

// checkpoint saves the session with the run in flight, before the calls of
// step run (see the comment at the top of this file). Agents without a
// session store keep no checkpoints.
func (r *runner) checkpoint(ctx context.Context, step int, calls []tool.Call, retry []model.Part) error {
	if r.s.agent.sessions == nil || len(calls) == 0 {
		return nil
	}
	f := &inFlight{RunID: r.runID, Step: step, Calls: calls, Retry: retry, Start: r.start, Usage: r.usage,
		Tries: maps.Clone(r.retries), OutputRetries: r.outputRetries, Agent: r.answering()}
	st := sessionState{ConversationID: r.s.id, Messages: r.history.full, InFlight: f, Context: r.s.contextState(), Environment: r.s.environmentState()}
	return r.s.put(ctx, st, fmt.Sprintf("checkpointing step %d of run %s of session", step, r.runID))
}

// Recover continues the run a stopped worker left in the session: a run in
// flight (see InFlight), or a resume that claimed the session's waiting
// run and never saved its outcome (see ClaimedResume) while journaling its
// calls. The session must have been loaded with OpenSession (or restored)
// in that state by an agent with a session store and an effect journal.
//
// It first claims the session in the store (a compare-and-swap: a worker
// that lost the race gets ErrSessionConflict and runs nothing), then runs
// the interrupted calls again through the journal under their original
// keys: completed calls replay their recorded returns, calls that started
// and never finished return an execution error marked ambiguous (see
// effect.Journal) unless the journal's recovery policy or reconciler settles
// them, and calls that never started run. The run then continues to its
// end as Run's does (with opts as Run's), and its end is saved. A claimed
// resume is recovered the same way: its answers are applied again, and
// its approved calls go through the journal.
//
// A session with nothing to recover fails with ErrState; an agent without
// an effect journal fails with ErrConfig (without one, the calls would
// simply run again: AbandonInFlight settles its runs in flight); a resume
// claimed by an agent without a journal fails with ErrResumeClaimed (only
// AbandonResume repairs it).
func (s *Session) Recover(ctx context.Context, opts ...RunOption) (*RunResult, error) {
	if s.agent.journal == nil {
		return nil, fmt.Errorf("%w: recovering a run needs an effect journal (Python: effect_journal=; Go: Builder.EffectJournal): without one its calls would run again; "+
			"close a run in flight with session.abandon_in_flight() (Go: Session.AbandonInFlight) instead", ErrConfig)
	}
	o, history, _, err := s.beginFor(opts, true)
	if err != nil {
		return nil, err
	}
	defer s.release()
	s.mu.Lock()
	f, c := s.inflight, s.resuming
	s.mu.Unlock()
	if f == nil && c == nil {
		return nil, fmt.Errorf("%w: the session has no run in flight and no claimed resume to recover", ErrState)
	}
	if f == nil && !c.Journaled {
		// Its approved calls may have run, and no journal says which.
		return nil, fmt.Errorf("%w: the resume of run %s was claimed by a worker without an effect journal, so whether "+
			"its approved calls ran is unknown; repair the session with AbandonResume", ErrResumeClaimed, c.RunID)
	}
	if err := s.checkRecord(ctx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCancelled, err)
	}
	// Claim the session: of the workers recovering this state, the one
	// whose compare-and-swap wins goes on.
	st := s.snapshot()
	var plan []resolved
	if f != nil {
		g := *f
		g.Recoveries++
		st.InFlight = &g
	} else {
		if plan, err = planResolution(c.Waiting, c.Resolution); err != nil {
			return nil, err
		}
		g := *c
		g.ClaimedAtMS = time.Now().UnixMilli()
		st.Resuming = &g
	}
	if s.agent.sessions != nil {
		if err := s.put(ctx, st, "claiming the recovery of session"); err != nil {
			return nil, err
		}
	}
	r, err := newRunner(ctx, s, o, history)
	if err != nil {
		return nil, err
	}
	defer r.finish()
	// The interrupted calls may have run: a recovery that fails keeps what
	// it added, as a failed Run does.
	r.keepOnFail = true
	if f == nil {
		w := c.Waiting
		r.runID, r.rc.RunID = w.RunID, w.RunID
		r.retries = cloneRetries(w.Retries)
		r.usage, r.usageBase = w.Usage, w.Usage
		r.publishUsage()
		if err := r.reenter(w.Agent); err != nil {
			return nil, err
		}
		res, err := r.resume(ctx, w, plan)
		return s.persist(ctx, res, err)
	}
	r.runID, r.rc.RunID = f.RunID, f.RunID
	r.retries = cloneRetries(f.Tries)
	r.usage, r.usageBase = f.Usage, f.Usage
	r.publishUsage()
	r.outputRetries = f.OutputRetries
	r.start = min(f.Start, len(history.full))
	if err := r.reenter(f.Agent); err != nil {
		return nil, err
	}
	res, err := r.recoverInFlight(ctx, f)
	return s.persist(ctx, res, err)
}

func cloneRetries(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return maps.Clone(m)
}

// recoverInFlight runs the checkpointed batch of f again, through the
// journal, then continues the loop.
func (r *runner) recoverInFlight(ctx context.Context, f *inFlight) (*RunResult, error) {
	step := f.Step
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
	base := r.baseContext(step)
	for i := range f.Calls {
		c := model.ToolCall{ID: f.Calls[i].ID, Name: f.Calls[i].Name, Arguments: f.Calls[i].Arguments}
		r.emit(Event{Kind: EventToolCall, Step: step, ToolCall: &c})
	}
	returns := r.execute(ctx, prepared, base, f.Calls, nil)
	next, res, err := r.settle(ctx, step, f.Calls, returns, nil)
	if res != nil {
		return res, err
	}
	next.Parts = append(next.Parts, f.Retry...)
	return r.loop(ctx, next, step+1)
}
