package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/model"
)

// Session is a conversation with an agent: each run continues the history
// of the previous ones. A session runs one run at a time.
type Session struct {
	agent *Agent
	id    string

	mu      sync.Mutex
	busy    bool
	history []model.Message
	// visible is the model-visible projection of history, extended when a
	// run begins (see transcript); it may be shorter than history.
	visible []model.Message
	waiting *waitState
	// usage sums what the session's runs consumed.
	usage model.Usage

	// With a session store (see sessionstore_durable.go): revision is the
	// stored record's revision this session matches (0: not stored yet);
	// adopt marks a session restored from exported state, whose record is
	// looked up when it first runs; stale is the save that failed, after
	// which the session refuses to run; resuming is a claimed resume that
	// never saved its outcome.
	revision uint64
	adopt    bool
	stale    error
	resuming *resumeClaim
	// inflight is the checkpoint of a run a stopped worker left in flight
	// (recover.go): the session refuses runs and resumes until recovered.
	inflight *inFlight
	// actx is the session's agent context (see Session.Context).
	actx *agentctx.Context
}

// Context returns the session's agent context: metadata, notes, named
// dependencies, per-tool capability grants, tool-search loaded state and
// context events (see package agentctx). It is part of exported state.
func (s *Session) Context() *agentctx.Context { return s.actx }

// NewSession starts an empty conversation.
func (a *Agent) NewSession() *Session {
	return &Session{agent: a, id: newID("conv"), actx: a.newContext()}
}

// newContext is the agent context a new or restored session starts with:
// empty, with the agent's grants as its defaults.
func (a *Agent) newContext() *agentctx.Context {
	c := agentctx.New()
	if len(a.capabilityGrants) > 0 {
		c.SetDefaultGrants(a.capabilityGrants)
	}
	if p := a.sessionEnvironment(); p != nil {
		installEnvironment(c, p)
	}
	return c
}

// Run runs prompt in a fresh session.
func (a *Agent) Run(ctx context.Context, prompt string, opts ...RunOption) (*RunResult, error) {
	return a.NewSession().Run(ctx, prompt, opts...)
}

// ID returns the conversation id.
func (s *Session) ID() string { return s.id }

// Agent returns the session's agent.
func (s *Session) Agent() *Agent { return s.agent }

// Messages returns a copy of the history.
func (s *Session) Messages() []model.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return model.CloneMessages(s.history)
}

// Usage returns what the session's runs consumed so far, every run
// counted (failed and cancelled ones too, and each part of a run resumed
// after waiting once). It is not part of exported state: a restored
// session counts from zero.
func (s *Session) Usage() model.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// addUsage adds what a run consumed since base.
func (s *Session) addUsage(now, base model.Usage) {
	d := model.Usage{
		Requests: now.Requests - base.Requests, InputTokens: now.InputTokens - base.InputTokens,
		OutputTokens: now.OutputTokens - base.OutputTokens, ToolCalls: now.ToolCalls - base.ToolCalls,
		CacheReadTokens: now.CacheReadTokens - base.CacheReadTokens, CacheWriteTokens: now.CacheWriteTokens - base.CacheWriteTokens,
		ReasoningTokens: now.ReasoningTokens - base.ReasoningTokens,
	}
	s.mu.Lock()
	s.usage.Add(d)
	s.mu.Unlock()
}

// Waiting reports whether the last run waits for approvals or deferred
// results.
func (s *Session) Waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting != nil
}

// Run sends prompt and runs the loop until the model answers with text,
// a call waits, or the run fails. A failed or cancelled run keeps the
// messages it produced in the history (and in the result), so the next
// run continues after them; tool calls of its last response that never
// ran get cancelled returns, so the history stays valid for providers
// (see ValidateHistory). The returned error is nil exactly when the
// status is completed or waiting.
//
// With a session store, a Session that no longer matches its stored
// record fails with ErrSessionConflict before it runs, and the run's end
// is saved; when that save fails (ErrSessionConflict when another worker
// saved the session meanwhile) the result is returned with the error, and
// the Session refuses further runs until loaded again with OpenSession.
func (s *Session) Run(ctx context.Context, prompt string, opts ...RunOption) (*RunResult, error) {
	o, history, w, err := s.begin(opts)
	if err != nil {
		return nil, err
	}
	defer s.release()
	if w != nil {
		return nil, fmt.Errorf("%w: the session waits for approvals or deferred results; resume it first", ErrState)
	}
	if err := s.checkRecord(ctx); err != nil {
		return nil, err
	}
	r, err := newRunner(ctx, s, o, history)
	if err != nil {
		return nil, err
	}
	defer r.finish()
	r.keepOnFail = true
	req := model.Request()
	if len(history.full) == 0 && s.agent.systemPrompt != "" {
		req.Parts = append(req.Parts, model.SystemPrompt(s.agent.systemPrompt))
	}
	req.Parts = append(req.Parts, model.UserPrompt(prompt))
	res, err := r.run(ctx, req)
	return s.persist(ctx, res, err)
}

// begin takes the session for one run (the caller must release it) and
// returns the run's options, the transcript to extend and the waiting
// state.
func (s *Session) begin(opts []RunOption) (*runOptions, transcript, *waitState, error) {
	return s.beginFor(opts, false)
}

// beginFor is begin; recovering lets a session whose run is in flight or
// whose resume was claimed begin (see Session.Recover).
func (s *Session) beginFor(opts []RunOption, recovering bool) (*runOptions, transcript, *waitState, error) {
	o := &runOptions{}
	for _, opt := range opts {
		opt(o)
	}
	if err := o.limits.check(); err != nil {
		return nil, transcript{}, nil, err
	}
	if err := checkSettings(o.settings); err != nil {
		return nil, transcript{}, nil, err
	}
	if err := s.acquire(); err != nil {
		return nil, transcript{}, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stale != nil:
		s.busy = false
		return nil, transcript{}, nil, staleError(s.stale)
	case s.inflight != nil && !recovering:
		s.busy = false
		return nil, transcript{}, nil, inFlightError(s.inflight, s.agent.journal != nil)
	case s.resuming != nil && !recovering:
		s.busy = false
		return nil, transcript{}, nil, fmt.Errorf("%w: run %s, claimed at %s; if its worker stopped, see AbandonResume",
			ErrResumeClaimed, s.resuming.RunID, time.UnixMilli(s.resuming.ClaimedAtMS).UTC().Format(time.RFC3339))
	}
	t := transcript{full: s.history, visible: s.visible}
	t.catchUp()
	s.visible = t.visible
	// The run appends in place, past the committed length: no copy per
	// run. Readers of the session see only the committed length, and a run
	// that does not commit seals the session.
	return o, t, s.waiting, nil
}

func (s *Session) acquire() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return ErrSessionBusy
	}
	s.busy = true
	return nil
}

func (s *Session) release() {
	s.mu.Lock()
	s.busy = false
	s.mu.Unlock()
}

// commit stores the history (and waiting state) of a run that completed or
// paused.
func (s *Session) commit(t transcript, w *waitState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history, s.visible = t.full, t.visible
	s.waiting = w
	// A recovered run or resume is done with its checkpoint or claim.
	s.inflight, s.resuming = nil, nil
}

// seal clips the session's slices, for a run that ends without committing:
// what it appended past them (kept by its result and maybe by the model)
// must not be overwritten by the next run, whose appends now reallocate.
func (s *Session) seal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history, s.visible = clip(s.history), clip(s.visible)
}

func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return prefix + "_" + hex.EncodeToString(b[:])
}
