package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/storeerr"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Sessions of an agent with a SessionStore (see Builder.SessionStore).
//
// Every run that ends (completed, waiting, failed or cancelled) saves the
// session's state with a compare-and-swap on the revision the Session was
// loaded or last saved at, so a Session that another worker overtook never
// overwrites that worker's outcome: it gets ErrSessionConflict.
//
// Resuming a waiting run first claims it: a compare-and-swap replaces the
// stored waiting state with a claim (the run id, when, the resolution),
// and only then does anything run. Of two resumes of the same waiting run
// (in one process or in several, from Sessions loaded from the store or
// restored from copies of exported state) exactly one claims it; the
// other is refused with ErrState and runs nothing. The resume saves its
// outcome over the claim when it ends.
//
// A worker that stops between the claim and that save leaves the claim in
// the store. It is never taken over automatically: the approved calls may
// have run, and running them again is what the claim exists to prevent.
// Loading such a session reports the claim (Session.ClaimedResume), its
// runs and resumes fail with ErrResumeClaimed, and an operator who knows
// the worker stopped repairs it with Session.AbandonResume.

// saveTimeout bounds the save that ends a run. The save ignores the run's
// cancellation (a cancelled run is saved too), so it needs a bound of its
// own.
const saveTimeout = 30 * time.Second

// resumeClaim is the stored mark of a claimed resume (sessionState.Resuming).
// It keeps the consumed waiting state and the resolution, so that
// AbandonResume can close the paused batch with what is known of it.
type resumeClaim struct {
	RunID       string     `json:"run_id"`
	ClaimedAtMS int64      `json:"claimed_at_ms"`
	Waiting     *waitState `json:"waiting"`
	Resolution  Resolution `json:"resolution"`
	// Journaled says the claiming agent journaled its calls, so that
	// Session.Recover can tell which approved calls ran.
	Journaled bool `json:"journaled,omitempty"`
}

// ResumeClaim describes a resume that claimed a session's waiting run in
// the session store and has not saved its outcome (see ErrResumeClaimed).
type ResumeClaim struct {
	// RunID is the run whose waiting state the resume consumed.
	RunID     string
	ClaimedAt time.Time
	// Pending is what the run waited for; Resolution answered it.
	Pending    []Pending
	Resolution Resolution
}

// OpenSession loads the session id from the agent's session store. The
// stored state is verified like SessionFromState's (opts as there), must
// belong to id, and is bound to this agent's tools and policies. An id the
// store does not hold fails with ErrSessionNotFound; an agent without a
// store fails with ErrConfig.
//
// A session whose resume was claimed and never finished opens, reports
// the claim through ClaimedResume, and refuses runs and resumes with
// ErrResumeClaimed until AbandonResume.
func (a *Agent) OpenSession(ctx context.Context, id string, opts ...RestoreOption) (*Session, error) {
	if a.sessions == nil {
		return nil, fmt.Errorf("%w: the agent has no session store (Python: session_store=; Go: Builder.SessionStore)", ErrConfig)
	}
	rec, err := a.sessions.Load(ctx, id)
	if errors.Is(err, storeerr.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q: %w", ErrSessionNotFound, id, err)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: loading session %q: %w", id, err)
	}
	s, err := a.restore(rec.State, restoreOpts(opts))
	if err != nil {
		return nil, fmt.Errorf("agent: session %q in the session store: %w", id, err)
	}
	if s.id != id {
		return nil, fmt.Errorf("%w: the stored state of session %q belongs to session %q", ErrState, id, s.id)
	}
	s.revision = rec.Revision
	return s, nil
}

// ClaimedResume reports the claimed, unfinished resume of a session loaded
// in that state (see ErrResumeClaimed); ok is false otherwise.
func (s *Session) ClaimedResume() (c ResumeClaim, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.resuming
	if r == nil {
		return ResumeClaim{}, false
	}
	c = ResumeClaim{RunID: r.RunID, ClaimedAt: time.UnixMilli(r.ClaimedAtMS), Resolution: r.Resolution}
	if r.Waiting != nil {
		c.Pending = append([]Pending(nil), r.Waiting.Pending...)
	}
	return c, true
}

// AbandonResume repairs a session whose claimed resume will never finish
// because its worker stopped: it closes the paused batch and saves the
// session as idle, so the next Run continues the conversation. Calls the
// resume denied and deferred results it supplied get the returns they
// would have had; approved calls get a cancelled return saying that
// whether they ran is unknown, for the model and the host to check
// before trying again. Nothing is executed.
//
// There is deliberately no call that puts the session back to waiting:
// the approved calls may have run, and a second approval would run them
// again.
//
// Abandoning a resume whose worker is in fact still running makes that
// worker's final save fail with ErrSessionConflict; the store keeps the
// abandonment. A session without a claimed resume fails with ErrState.
func (s *Session) AbandonResume(ctx context.Context) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.mu.Lock()
	c, history, stale := s.resuming, s.history, s.stale
	s.mu.Unlock()
	if stale != nil {
		return staleError(stale)
	}
	if c == nil || c.Waiting == nil {
		return fmt.Errorf("%w: the session has no claimed resume to abandon", ErrState)
	}
	next := append(clip(history), abandoned(c))
	if s.agent.sessions != nil {
		if err := s.checkRecord(ctx); err != nil {
			return err
		}
		if err := s.put(ctx, sessionState{ConversationID: s.id, Messages: next, Context: s.contextState(), Environment: s.environmentState()}, "abandoning the claimed resume of session"); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.history, s.resuming = next, nil
	s.mu.Unlock()
	return nil
}

// abandoned is the request that closes the paused batch of an abandoned
// resume (see AbandonResume).
func abandoned(c *resumeClaim) model.Message {
	w := c.Waiting
	returns := slices.Clone(w.Returns)
	settled := map[int]bool{}
	// A resolution that does not fit (it cannot, unless the state was
	// edited) settles nothing: every pending call is then unknown.
	if plan, err := planResolution(w, c.Resolution); err == nil {
		for _, p := range plan {
			switch {
			case p.deferred != nil:
				returns[p.index] = deferredReturn(w.Calls[p.index], p.pending, *p.deferred)
			case !p.approval.Approved:
				returns[p.index] = deniedReturn(w.Calls[p.index], p.pending, *p.approval)
			default:
				continue
			}
			settled[p.index] = true
		}
	}
	for _, p := range w.Pending {
		i := callIndex(w.Calls, p.ToolCallID)
		if i < 0 || settled[i] {
			continue
		}
		ret := tool.ErrorReturn(w.Calls[i], tool.Cancelled("the resume of this call was abandoned after its worker stopped; "+
			"whether the call ran is unknown, so check its effect before calling it again"))
		if p.Kind == PendingApproval {
			ret.Metadata[tool.MetaApprovalID] = p.ID
		} else {
			ret.Metadata[tool.MetaDeferredID] = p.ID
		}
		returns[i] = ret
	}
	m := model.Message{Kind: model.KindRequest, RunID: w.RunID, Parts: make([]model.Part, 0, len(returns))}
	for _, ret := range returns {
		m.Parts = append(m.Parts, model.ToolReturn(ret))
	}
	return m
}

// claim consumes the waiting run w in the store before the resume runs
// anything: the stored state becomes a claim, so that no other resume of w
// (from this Session, another one or a copy of exported state) can claim
// it again.
func (s *Session) claim(ctx context.Context, w *waitState, res Resolution) error {
	if err := s.checkRecord(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrCancelled, err)
	}
	s.mu.Lock()
	st := sessionState{ConversationID: s.id, Messages: s.history, Context: s.contextState(), Environment: s.environmentState(), Resuming: &resumeClaim{
		RunID: w.RunID, ClaimedAtMS: time.Now().UnixMilli(), Waiting: w, Resolution: res, Journaled: s.agent.journal != nil,
	}}
	s.mu.Unlock()
	return s.put(ctx, st, fmt.Sprintf("claiming waiting run %s of session", w.RunID))
}

// unclaim gives the waiting state back after a claim, for a resume that
// failed before it ran anything.
func (s *Session) unclaim(ctx context.Context, w *waitState) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	s.mu.Lock()
	st := sessionState{ConversationID: s.id, Messages: s.history, Waiting: w, Context: s.contextState(), Environment: s.environmentState()}
	s.mu.Unlock()
	return s.put(ctx, st, fmt.Sprintf("releasing the claim on waiting run %s of session", w.RunID))
}

// checkRecord checks, before a run, a resume or an abandonment, that the
// session still is its stored record, so that a Session another worker
// overtook fails before it calls the model rather than when it saves. The
// compare-and-swap of the save stays the arbiter: this only fails early.
//
// A session restored from exported state adopts its record here: none
// yet (its first save creates it), or the stored one when it holds this
// very state. A copy that differs (an old copy, or one of a session that
// went on elsewhere) is refused: running it would overwrite the record,
// and resuming it would resume a waiting run a second time.
func (s *Session) checkRecord(ctx context.Context) error {
	if s.agent.sessions == nil {
		return nil
	}
	s.mu.Lock()
	rev, adopt := s.revision, s.adopt
	s.mu.Unlock()
	if rev == 0 && !adopt {
		return nil // a new session: its first save creates the record
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrCancelled, err)
	}
	rec, err := s.agent.sessions.Load(ctx, s.id)
	switch {
	case errors.Is(err, storeerr.ErrNotFound) && adopt:
		s.mu.Lock()
		s.adopt = false
		s.mu.Unlock()
		return nil
	case errors.Is(err, storeerr.ErrNotFound):
		return fmt.Errorf("%w: session %q is no longer in the session store: %w", ErrSessionConflict, s.id, err)
	case err != nil:
		return fmt.Errorf("agent: loading session %q: %w", s.id, err)
	case adopt:
		same, err := sameState(rec.State, s.snapshot())
		if err != nil {
			return fmt.Errorf("agent: session %q in the session store: %w", s.id, err)
		}
		if !same {
			return fmt.Errorf("%w: the store holds another state of session %q: this copy is out of date "+
				"(its waiting run was resumed, or the session went on, elsewhere); load it with OpenSession", ErrSessionConflict, s.id)
		}
		s.mu.Lock()
		s.revision, s.adopt = rec.Revision, false
		s.mu.Unlock()
	case rec.Revision != rev:
		return fmt.Errorf("%w: session %q is at revision %d in the session store, this Session at %d "+
			"(another worker ran or resumed it); load it again with OpenSession", ErrSessionConflict, s.id, rec.Revision, rev)
	}
	return nil
}

// sameState reports whether stored (a state as ExportState writes it)
// holds the same session state as st. Both sides go through the same
// decoding and encoding, so equal states compare equal however they were
// written. stored is not verified: it is only compared with st, which was.
func sameState(stored []byte, st sessionState) (bool, error) {
	env, err := decodeEnvelope(stored)
	if err != nil {
		return false, err
	}
	var theirs sessionState
	d := json.NewDecoder(bytes.NewReader(env.State))
	d.UseNumber()
	if err := d.Decode(&theirs); err != nil {
		return false, fmt.Errorf("%w: decoding session state: %v", ErrState, err)
	}
	a, err := json.Marshal(theirs)
	if err != nil {
		return false, err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return false, err
	}
	if a, err = canonical(a); err != nil {
		return false, err
	}
	if b, err = canonical(b); err != nil {
		return false, err
	}
	return bytes.Equal(a, b), nil
}

// persist saves what a run left in the session, for an agent with a
// store. The run happened either way: when the save fails, its result is
// returned with the error.
func (s *Session) persist(ctx context.Context, res *RunResult, runErr error) (*RunResult, error) {
	if s.agent.sessions == nil {
		return res, runErr
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	if err := s.put(ctx, s.snapshot(), "saving session"); err != nil {
		if runErr != nil {
			return res, fmt.Errorf("%w (and then %w)", runErr, err)
		}
		return res, err
	}
	return res, runErr
}

// put saves st with a compare-and-swap on the session's revision. A failed
// save leaves the session stale: the store may hold another state, or
// (when the store failed) maybe this one, so the Session refuses to run
// again until loaded anew.
func (s *Session) put(ctx context.Context, st sessionState, what string) error {
	data, err := s.agent.encodeState(st)
	if err != nil {
		return err
	}
	s.mu.Lock()
	expected := s.revision
	s.mu.Unlock()
	rev, err := s.agent.sessions.Save(ctx, s.id, data, expected)
	if err != nil {
		if errors.Is(err, storeerr.ErrConflict) {
			err = fmt.Errorf("%w: %s %q: another worker changed it since this Session read it: %w", ErrSessionConflict, what, s.id, err)
		} else {
			err = fmt.Errorf("agent: %s %q: %w", what, s.id, err)
		}
		s.mu.Lock()
		s.stale = err
		s.mu.Unlock()
		return err
	}
	s.mu.Lock()
	s.revision, s.adopt = rev, false
	s.mu.Unlock()
	return nil
}

// staleError is why a stale Session refuses to run.
func staleError(cause error) error {
	return fmt.Errorf("%w: a save of this Session failed, so it may not match the session store "+
		"(load it again with OpenSession): %w", ErrState, cause)
}
