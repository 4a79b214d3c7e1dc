package sessionstoretest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/session/sessiontest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Workers opens two handles on one fresh store, as two worker processes
// sharing it would (two connections to one database; a MemoryStore
// may be returned twice).
type Workers func(t *testing.T) (a, b session.Store)

// RunDurable checks durable sessions over the store: agents of two workers
// continue each other's sessions by id, and a waiting run whose approved
// call has an effect is resumed at most once, whether the resumes come
// one after another or at once, from one worker or two, from Sessions
// loaded from the store or restored from exported copies; a run whose
// worker stops while its calls run is reported in flight by the store,
// naming the calls, until it is settled.
func RunDurable(t *testing.T, open Workers) {
	ctx := context.Background()

	t.Run("ApprovedByAnotherWorker", func(t *testing.T) {
		f := newFixture(t, open)
		s := f.waiting(t, f.a, "deploy prod")
		other, err := f.b.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatalf("worker b opens %s: %v", s.ID(), err)
		}
		if !other.Waiting() || len(other.Pending()) != 1 {
			t.Fatalf("worker b sees waiting=%v pending=%v", other.Waiting(), other.Pending())
		}
		res, err := other.Resume(ctx, approveAll(other))
		if err != nil || res.Status != agent.StatusCompleted || res.Output != "deployed" {
			t.Fatalf("worker b resumes: %+v %v", res, err)
		}
		f.wantRuns(t, 1)
		// Worker a's Session still shows the run waiting; the store refuses.
		if _, err := s.Resume(ctx, approveAll(s)); !errors.Is(err, agent.ErrState) {
			t.Fatalf("worker a resumes the finished run: err = %v, want ErrState", err)
		}
		f.wantRuns(t, 1)
		again, err := f.a.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		msgs := again.Messages()
		if again.Waiting() || len(msgs) != len(res.Messages) || msgs[len(msgs)-1].Text() != "deployed" {
			t.Fatalf("worker a loads waiting=%v, %d messages (want %d)", again.Waiting(), len(msgs), len(res.Messages))
		}
		if res, err := again.Run(ctx, "status"); err != nil || res.Output != "ok" {
			t.Fatalf("worker a continues: %+v %v", res, err)
		}
	})

	t.Run("SecondResumeRefused", func(t *testing.T) {
		f := newFixture(t, open)
		s := f.waiting(t, f.a, "deploy prod")
		loaded, err := f.b.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		res := approveAll(s)
		if _, err := s.Resume(ctx, res); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resume(ctx, res); !errors.Is(err, agent.ErrState) {
			t.Fatalf("second resume of one Session: err = %v, want ErrState", err)
		}
		// A Session loaded while the run waited is out of date now.
		if _, err := loaded.Resume(ctx, res); !errors.Is(err, agent.ErrSessionConflict) {
			t.Fatalf("resume of a Session loaded before: err = %v, want ErrSessionConflict", err)
		}
		f.wantRuns(t, 1)
	})

	t.Run("ConcurrentResumes", func(t *testing.T) {
		f := newFixture(t, open)
		const sessions = 5
		for i := range sessions {
			s := f.waiting(t, f.a, "deploy prod")
			x, err := f.a.OpenSession(ctx, s.ID())
			if err != nil {
				t.Fatal(err)
			}
			y, err := f.b.OpenSession(ctx, s.ID())
			if err != nil {
				t.Fatal(err)
			}
			resumers := []*agent.Session{x, y}
			errs := sessiontest.Race(2, func(k int) error {
				_, err := resumers[k].Resume(ctx, approveAll(resumers[k]))
				return err
			})
			oneResumed(t, errs, agent.ErrState)
			f.wantRuns(t, int32(i+1))
		}
		// Two goroutines sharing one Session: the session is busy, or no
		// longer waiting, for the second.
		s := f.waiting(t, f.b, "deploy prod")
		res := approveAll(s)
		errs := sessiontest.Race(2, func(int) error {
			_, err := s.Resume(ctx, res)
			if errors.Is(err, agent.ErrSessionBusy) {
				return fmt.Errorf("%w (%w)", agent.ErrState, err)
			}
			return err
		})
		oneResumed(t, errs, agent.ErrState)
		f.wantRuns(t, sessions+1)
	})

	t.Run("OldExportedCopyRefused", func(t *testing.T) {
		f := newFixture(t, open)
		// The run waits twice: the same run id, another paused call.
		s := f.waiting(t, f.a, "deploy twice")
		first, err := s.ExportState()
		if err != nil {
			t.Fatal(err)
		}
		if res, err := s.Resume(ctx, approveAll(s)); err != nil || res.Status != agent.StatusWaiting {
			t.Fatalf("first resume: %+v %v", res, err)
		}
		for name, w := range map[string]*agent.Agent{"a": f.a, "b": f.b} {
			c, err := w.SessionFromState(first)
			if err != nil {
				t.Fatalf("worker %s restores the old copy: %v", name, err)
			}
			if _, err := c.Resume(ctx, approveAll(c)); !errors.Is(err, agent.ErrSessionConflict) {
				t.Fatalf("worker %s resumes the old copy: err = %v, want ErrSessionConflict", name, err)
			}
		}
		f.wantRuns(t, 1)
		// A copy of the current state resumes, once.
		current, err := s.ExportState()
		if err != nil {
			t.Fatal(err)
		}
		c1, err := f.b.SessionFromState(current)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := f.a.SessionFromState(current)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := c1.Resume(ctx, approveAll(c1)); err != nil || res.Output != "deployed" {
			t.Fatalf("resume of the current copy: %+v %v", res, err)
		}
		f.wantRuns(t, 2)
		for name, c := range map[string]*agent.Session{"second copy": c2, "original": s} {
			if _, err := c.Resume(ctx, approveAll(c)); !errors.Is(err, agent.ErrSessionConflict) {
				t.Fatalf("%s resumes again: err = %v, want ErrSessionConflict", name, err)
			}
		}
		f.wantRuns(t, 2)
	})

	t.Run("ConcurrentRunsConflict", func(t *testing.T) {
		// Both runs reach the model before either saves, so both pass the
		// check before running and exactly one loses when saving.
		var arrived sync.WaitGroup
		arrived.Add(2)
		f := newFixture(t, open, func(prompt string) {
			if prompt == "race" {
				arrived.Done()
				arrived.Wait()
			}
		})
		s := f.a.NewSession()
		if _, err := s.Run(ctx, "hello"); err != nil {
			t.Fatal(err)
		}
		x, err := f.a.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		y, err := f.b.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		runners := []*agent.Session{x, y}
		results := make([]*agent.RunResult, 2)
		errs := sessiontest.Race(2, func(k int) error {
			var err error
			results[k], err = runners[k].Run(ctx, "race")
			return err
		})
		winner := oneResumed(t, errs, agent.ErrSessionConflict)
		loser := 1 - winner
		if !errors.Is(errs[loser], storeerr.ErrConflict) || results[loser] == nil || results[loser].Status != agent.StatusCompleted {
			t.Fatalf("the loser's run happened but was not saved: want its result and storeerr.ErrConflict, got %+v %v", results[loser], errs[loser])
		}
		stored, err := f.b.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		if len(stored.Messages()) != len(results[winner].Messages) {
			t.Fatalf("the store holds %d messages, the winner's run %d", len(stored.Messages()), len(results[winner].Messages))
		}
		if _, err := runners[loser].Run(ctx, "again"); !errors.Is(err, agent.ErrState) {
			t.Fatalf("the loser's Session runs again: err = %v, want ErrState", err)
		}
	})

	t.Run("ClaimedResumeNeverFinished", func(t *testing.T) {
		f := newFixture(t, open)
		entered, release := make(chan struct{}), make(chan struct{})
		f.deploy.during = func() {
			close(entered)
			<-release
		}
		s := f.a.NewSession()
		waited, err := s.Run(ctx, "deploy prod")
		if err != nil || waited.Status != agent.StatusWaiting {
			t.Fatalf("run: %+v %v", waited, err)
		}
		type outcome struct {
			res *agent.RunResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := s.Resume(ctx, approveAll(s))
			done <- outcome{res, err}
		}()
		<-entered // worker a claimed the run and runs the approved call

		o, err := f.b.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatalf("worker b opens a session whose resume was claimed: %v", err)
		}
		c, ok := o.ClaimedResume()
		if !ok || c.RunID != waited.RunID || len(c.Pending) != 1 || !c.Resolution.Approvals[0].Approved || c.ClaimedAt.IsZero() {
			t.Fatalf("claimed resume = %+v, %v", c, ok)
		}
		if o.Waiting() {
			t.Fatal("a claimed run still shows as waiting")
		}
		if _, err := o.Resume(ctx, agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: c.Pending[0].ID, Approved: true}}}); !errors.Is(err, agent.ErrResumeClaimed) {
			t.Fatalf("resume of a claimed run: err = %v, want ErrResumeClaimed", err)
		}
		if _, err := o.Run(ctx, "status"); !errors.Is(err, agent.ErrResumeClaimed) || !errors.Is(err, agent.ErrState) {
			t.Fatalf("run of a claimed session: err = %v, want ErrResumeClaimed", err)
		}

		// The operator decides worker a is gone and abandons the resume.
		if err := o.AbandonResume(ctx); err != nil {
			t.Fatalf("abandon: %v", err)
		}
		if _, ok := o.ClaimedResume(); ok {
			t.Fatal("still claimed after abandoning")
		}
		if err := o.AbandonResume(ctx); !errors.Is(err, agent.ErrState) {
			t.Fatalf("second abandon: err = %v, want ErrState", err)
		}
		reloaded, err := f.a.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		ret := lastReturn(t, reloaded.Messages())
		if !ret.IsError || ret.ErrorKind() != tool.ErrorKindCancelled || ret.Name != "deploy" {
			t.Fatalf("the abandoned call's return: %+v", ret)
		}
		if res, err := reloaded.Run(ctx, "status"); err != nil || res.Output != "ok" {
			t.Fatalf("run after abandoning: %+v %v", res, err)
		}

		// Worker a was alive after all: its outcome is refused, not stored.
		close(release)
		out := <-done
		if !errors.Is(out.err, agent.ErrSessionConflict) || out.res == nil {
			t.Fatalf("worker a's late resume: %+v %v, want its result and ErrSessionConflict", out.res, out.err)
		}
		f.wantRuns(t, 1)
	})

	t.Run("CompletedRunLeavesNothingInFlight", func(t *testing.T) {
		f := newFixture(t, open)
		s := f.a.NewSession()
		for _, prompt := range []string{"send one", "send two"} {
			if res, err := s.Run(ctx, prompt); err != nil || res.Status != agent.StatusCompleted {
				t.Fatalf("run %q: %+v %v", prompt, res, err)
			}
			o, err := f.b.OpenSession(ctx, s.ID())
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := o.InFlight(); ok {
				t.Fatalf("after run %q completed, the store still holds it in flight: %+v", prompt, r)
			}
		}
		if got := f.send.runs.Load(); got != 2 {
			t.Fatalf("send ran %d times, want 2", got)
		}
	})

	t.Run("RunInFlightWhenItsWorkerStops", func(t *testing.T) {
		f := newFixture(t, open)
		entered, release := make(chan struct{}), make(chan struct{})
		f.send.during = func() {
			close(entered)
			<-release
		}
		// The session's first run: the store holds no record of it before
		// its call starts.
		s := f.a.NewSession()
		type outcome struct {
			res *agent.RunResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := s.Run(ctx, "send mail")
			done <- outcome{res, err}
		}()
		<-entered // worker a runs the call; as far as worker b knows, it stopped

		o, err := f.b.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatalf("worker b opens a session whose run is in flight: %v", err)
		}
		r, ok := o.InFlight()
		if !ok || r.RunID == "" || len(r.Calls) != 1 || r.Calls[0].Name != "send" || r.Step != 0 {
			t.Fatalf("in flight = %+v, %v; want the run with its send call", r, ok)
		}
		if _, err := o.Run(ctx, "status"); !errors.Is(err, agent.ErrRunInFlight) || !errors.Is(err, agent.ErrState) ||
			!strings.Contains(err.Error(), "send ("+r.Calls[0].ID+")") || !strings.Contains(err.Error(), "AbandonInFlight") {
			t.Fatalf("run of a session in flight: err = %v, want ErrRunInFlight naming the call and the way out", err)
		}
		if _, err := o.Recover(ctx); !errors.Is(err, agent.ErrConfig) {
			t.Fatalf("recover without an effect journal: err = %v, want ErrConfig", err)
		}

		// The operator decides worker a is gone and closes the run.
		if err := o.AbandonInFlight(ctx); err != nil {
			t.Fatalf("abandon: %v", err)
		}
		if _, ok := o.InFlight(); ok {
			t.Fatal("still in flight after abandoning")
		}
		if err := o.AbandonInFlight(ctx); !errors.Is(err, agent.ErrState) {
			t.Fatalf("second abandon: err = %v, want ErrState", err)
		}
		reloaded, err := f.a.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := reloaded.InFlight(); ok {
			t.Fatal("the store still holds the abandoned run in flight")
		}
		ret := lastReturn(t, reloaded.Messages())
		if !ret.IsError || ret.ErrorKind() != tool.ErrorKindCancelled || ret.Name != "send" || !strings.Contains(fmt.Sprint(ret.Content), "may have run") {
			t.Fatalf("the interrupted call's return: %+v", ret)
		}
		if res, err := reloaded.Run(ctx, "status"); err != nil || res.Output != "ok" {
			t.Fatalf("run after abandoning: %+v %v", res, err)
		}

		// Worker a was alive after all: its outcome is refused, not stored.
		close(release)
		out := <-done
		if !errors.Is(out.err, agent.ErrSessionConflict) || out.res == nil {
			t.Fatalf("worker a's late run: %+v %v, want its result and ErrSessionConflict", out.res, out.err)
		}
		if got := f.send.runs.Load(); got != 1 {
			t.Fatalf("send ran %d times, want 1", got)
		}
	})
}

// stateKey signs the state of both workers, as a deployment shares it.
var stateKey = []byte("sessionstoretest key")

type fixture struct {
	a, b   *agent.Agent
	deploy *deployTool
	// send is a tool without approval: its calls run as soon as they come.
	send *deployTool
}

// newFixture builds one agent per worker handle, sharing the deploy tool
// (its effect is what must not happen twice) and the gate (see script).
func newFixture(t *testing.T, open Workers, gate ...func(prompt string)) *fixture {
	t.Helper()
	sa, sb := open(t)
	f := &fixture{deploy: &deployTool{}, send: &deployTool{name: "send", ungated: true}}
	var g func(string)
	if len(gate) > 0 {
		g = gate[0]
	}
	build := func(st session.Store) *agent.Agent {
		return agent.NewBuilder(script(g)).Tool(f.deploy.tool(), f.send.tool()).StateKey(stateKey).SessionStore(st).MustBuild()
	}
	f.a, f.b = build(sa), build(sb)
	return f
}

// waiting starts a session on w whose run waits to deploy.
func (f *fixture) waiting(t *testing.T, w *agent.Agent, prompt string) *agent.Session {
	t.Helper()
	s := w.NewSession()
	res, err := s.Run(context.Background(), prompt)
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run %q: %+v %v", prompt, res, err)
	}
	return s
}

func (f *fixture) wantRuns(t *testing.T, n int32) {
	t.Helper()
	if got := f.deploy.runs.Load(); got != n {
		t.Fatalf("the approved deploy ran %d times, want %d", got, n)
	}
}

// deployTool is a destructive tool behind approval: runs counts its
// approved runs on every worker.
type deployTool struct {
	// name is the tool's ("deploy" when empty); an ungated one needs no
	// approval.
	name    string
	ungated bool
	runs    atomic.Int32
	// during, set before the runs start, runs inside each approved call.
	during func()
}

func (d *deployTool) tool() tool.Tool {
	name := cmp.Or(d.name, "deploy")
	return tool.New(name, "Deploy a release", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil && !d.ungated {
			return tool.Result{}, tool.ApprovalRequired("deploys to production", nil)
		}
		d.runs.Add(1)
		if d.during != nil {
			d.during()
		}
		return tool.JSON(map[string]any{"deployed": true}), nil
	})
}

// script answers like a model that deploys when asked: a prompt starting
// with "deploy" gets a deploy call, and "deploy twice" another one after
// the first deploy; a prompt starting with "send" gets a send call; the
// returns then get "deployed"; other prompts get "ok". gate, when set,
// runs before a prompt is answered.
func script(gate func(prompt string)) model.Model {
	return model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		prompt, deployed, answering := lastPrompt(msgs)
		call := model.CallsResponse(model.Call(fmt.Sprintf("call_%d", len(msgs)), "deploy", map[string]string{"env": "prod"}))
		if answering && gate != nil {
			gate(prompt)
		}
		switch {
		case answering && strings.HasPrefix(prompt, "deploy"):
			return call, nil
		case answering && strings.HasPrefix(prompt, "send"):
			return model.CallsResponse(model.Call(fmt.Sprintf("call_%d", len(msgs)), "send", map[string]string{"to": "all"})), nil
		case answering:
			return model.Response(model.TextPart("ok")), nil
		case prompt == "deploy twice" && deployed < 2:
			return call, nil
		}
		return model.Response(model.TextPart("deployed")), nil
	})
}

// lastPrompt finds the last user prompt, counts the successful deploy
// returns after it, and says whether the last message is that prompt.
func lastPrompt(msgs []model.Message) (prompt string, deployed int, answering bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Parts {
			if p.Kind == model.KindUserPrompt && len(p.Content) > 0 {
				return p.Content[0].Text, deployed, i == len(msgs)-1
			}
		}
		for _, r := range msgs[i].Returns() {
			if r.Name == "deploy" && !r.IsError {
				deployed++
			}
		}
	}
	return "", deployed, false
}

func approveAll(s *agent.Session) agent.Resolution {
	var res agent.Resolution
	for _, p := range s.Pending() {
		res.Approvals = append(res.Approvals, agent.ApprovalDecision{ID: p.ID, Approved: true, DecidedBy: "sessionstoretest"})
	}
	return res
}

// oneResumed checks that exactly one of errs is nil and the others match
// want, and returns the index of the nil one.
func oneResumed(t *testing.T, errs []error, want error) int {
	t.Helper()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("calls %d and %d both succeeded", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, want):
			t.Fatalf("call %d: err = %v, want %v", i, err, want)
		}
	}
	if winner < 0 {
		t.Fatalf("no call succeeded: %v", errs)
	}
	return winner
}

func lastReturn(t *testing.T, msgs []model.Message) tool.Return {
	t.Helper()
	for i := len(msgs) - 1; i >= 0; i-- {
		if rets := msgs[i].Returns(); len(rets) > 0 {
			return rets[len(rets)-1]
		}
	}
	t.Fatal("no tool return in the history")
	return tool.Return{}
}
