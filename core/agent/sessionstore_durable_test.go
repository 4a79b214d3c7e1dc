package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agent/sessionstoretest"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Two workers sharing one session.MemoryStore.
func TestMemorySessionStoreDurable(t *testing.T) {
	sessionstoretest.RunDurable(t, func(*testing.T) (session.Store, session.Store) {
		st := &session.MemoryStore{}
		return st, st
	})
}

var storeKey = []byte("store key")

// storedAgent builds an agent with the deploy and add tools over st,
// answering with responses.
func storedAgent(st session.Store, d *deployTool, responses ...model.Message) *agent.Agent {
	return agent.NewBuilder(model.NewTestModel(responses...)).Tool(d.tool(), addTool()).
		StateKey(storeKey).SessionStore(st).MustBuild()
}

func TestOpenSessionErrors(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	a := storedAgent(st, &deployTool{})
	_, err := a.OpenSession(ctx, "conv_missing")
	if !errors.Is(err, agent.ErrSessionNotFound) || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown id: err = %v, want ErrSessionNotFound and store.ErrNotFound", err)
	}
	plain := agent.NewBuilder(model.TextModel("hi")).MustBuild()
	if _, err := plain.OpenSession(ctx, "conv_x"); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("agent without a store: err = %v, want ErrConfig", err)
	}

	// The stored state must belong to the id it is stored under.
	s := storedAgent(st, &deployTool{}, text("hi")).NewSession()
	if _, err := s.Run(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	rec, err := st.Load(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Save(ctx, "conv_other", rec.State, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenSession(ctx, "conv_other"); !errors.Is(err, agent.ErrState) {
		t.Fatalf("state stored under another id: err = %v, want ErrState", err)
	}

	// State is verified as SessionFromState verifies it: unsigned state
	// needs the opt-in.
	unsigned := agent.NewBuilder(model.NewTestModel(text("hi"))).SessionStore(st).MustBuild()
	u := unsigned.NewSession()
	if _, err := u.Run(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := unsigned.OpenSession(ctx, u.ID()); !errors.Is(err, agent.ErrUnsignedState) {
		t.Fatalf("unsigned stored state: err = %v, want ErrUnsignedState", err)
	}
	if _, err := unsigned.OpenSession(ctx, u.ID(), agent.AllowUnsigned()); err != nil {
		t.Fatalf("unsigned stored state, allowed: %v", err)
	}
	if _, err := a.OpenSession(ctx, u.ID()); !errors.Is(err, agent.ErrUnsignedState) {
		t.Fatalf("an agent with a key opens unsigned state: err = %v", err)
	}
}

// Every run that ends is saved: completed, failed and cancelled, and the
// stored state is what ExportState exports.
func TestEveryRunEndIsSaved(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	// The first request is answered, the second fails, the third is
	// cancelled while the model answers.
	n := 0
	var cancel context.CancelFunc
	m := model.NewFunctionModel(func(ctx context.Context, _ []model.Message, _ model.Params) (model.Message, error) {
		n++
		switch n {
		case 1:
			return text("one"), nil
		case 2:
			return model.Message{}, errors.New("overloaded")
		}
		cancel()
		return model.Message{}, ctx.Err()
	})
	a := agent.NewBuilder(m).StateKey(storeKey).SessionStore(st).MustBuild()
	s := a.NewSession()
	if _, err := st.Load(ctx, s.ID()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a new session is stored before its first run: %v", err)
	}
	if _, err := s.Run(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	rec := mustLoad(t, st, s.ID())
	if exported, err := s.ExportState(); err != nil || string(exported) != string(rec.State) {
		t.Fatalf("stored state differs from exported state (%v)", err)
	}

	res, err := s.Run(ctx, "second")
	if !errors.Is(err, agent.ErrModel) || res.Status != agent.StatusFailed {
		t.Fatalf("failed run: %+v %v", res, err)
	}
	after := mustLoad(t, st, s.ID())
	if after.Revision <= rec.Revision || messagesIn(t, a, after) != len(res.Messages) {
		t.Fatalf("the failed run was not saved: revision %d -> %d", rec.Revision, after.Revision)
	}

	cctx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	cancel = cancelRun
	res, err = s.Run(cctx, "third")
	if !errors.Is(err, agent.ErrCancelled) || res.Status != agent.StatusCancelled {
		t.Fatalf("cancelled run: %+v %v", res, err)
	}
	last := mustLoad(t, st, s.ID())
	if last.Revision <= after.Revision || messagesIn(t, a, last) != len(res.Messages) {
		t.Fatalf("the cancelled run was not saved: revision %d -> %d", after.Revision, last.Revision)
	}
}

// A Session that another worker overtook fails before it calls the model.
func TestStaleSessionFailsBeforeRunning(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	s := storedAgent(st, &deployTool{}, text("one"), text("two")).NewSession()
	if _, err := s.Run(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	m := model.NewTestModel(text("never"))
	late, err := agent.NewBuilder(m).StateKey(storeKey).SessionStore(st).MustBuild().OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	if _, err := late.Run(ctx, "third"); !errors.Is(err, agent.ErrSessionConflict) || !errors.Is(err, agent.ErrState) {
		t.Fatalf("stale Session: err = %v, want ErrSessionConflict", err)
	}
	if n := len(m.Requests()); n != 0 {
		t.Fatalf("the stale Session called the model %d times", n)
	}
}

// An invalid resolution claims nothing: the run stays waiting in the store.
func TestInvalidResolutionClaimsNothing(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	d := &deployTool{}
	s := storedAgent(st, d, calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})), text("done")).NewSession()
	if res, err := s.Run(ctx, "deploy"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("%+v %v", res, err)
	}
	before := mustLoad(t, st, s.ID())
	if _, err := s.Resume(ctx, agent.Resolution{}); !errors.Is(err, agent.ErrState) {
		t.Fatalf("empty resolution: err = %v", err)
	}
	if after := mustLoad(t, st, s.ID()); after.Revision != before.Revision {
		t.Fatalf("an invalid resolution changed the store: revision %d -> %d", before.Revision, after.Revision)
	}
	if res, err := s.Resume(ctx, approve(s)); err != nil || res.Output != "done" || d.calls.Load() != 2 {
		t.Fatalf("resume: %+v %v, %d calls", res, err, d.calls.Load())
	}
}

// A claimed resume whose run fails does not wait again, since its approved
// call may have run: it ends like a failed Run, and nothing resumes it.
func TestFailedClaimedResumeDoesNotWaitAgain(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	d := &deployTool{}
	// No response after the deploy call: the resumed run's request fails.
	a := storedAgent(st, d, calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})))
	s := a.NewSession()
	if res, err := s.Run(ctx, "deploy"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("%+v %v", res, err)
	}
	decision := approve(s)
	res, err := s.Resume(ctx, decision)
	if !errors.Is(err, agent.ErrModel) || res.Status != agent.StatusFailed || d.calls.Load() != 2 {
		t.Fatalf("resume: %+v %v, %d calls", res, err, d.calls.Load())
	}
	if s.Waiting() {
		t.Fatal("the failed claimed resume waits again")
	}
	if _, err := s.Resume(ctx, decision); !errors.Is(err, agent.ErrState) {
		t.Fatalf("second resume: err = %v", err)
	}
	loaded, err := a.OpenSession(ctx, s.ID())
	if err != nil || loaded.Waiting() {
		t.Fatalf("stored session: waiting=%v %v", loaded != nil && loaded.Waiting(), err)
	}
	if d.calls.Load() != 2 {
		t.Fatalf("deploy was called %d times, want 2 (paused, then approved)", d.calls.Load())
	}
}

// A copy of exported state whose session the store does not hold creates
// the record when it first runs; a second copy is then out of date.
func TestRestoredCopyCreatesItsRecordOnce(t *testing.T) {
	ctx := context.Background()
	state := exportWaiting(t, storeKey)
	st := &session.MemoryStore{}
	d := &deployTool{}
	first, err := storedAgent(st, d, text("done")).SessionFromState(state)
	if err != nil {
		t.Fatal(err)
	}
	second, err := storedAgent(st, d, text("done")).SessionFromState(state)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := first.Resume(ctx, approve(first)); err != nil || res.Output != "done" {
		t.Fatalf("first copy: %+v %v", res, err)
	}
	if _, err := second.Resume(ctx, approve(second)); !errors.Is(err, agent.ErrSessionConflict) {
		t.Fatalf("second copy: err = %v, want ErrSessionConflict", err)
	}
	if n := d.calls.Load(); n != 1 {
		t.Fatalf("deploy ran %d times, want 1", n)
	}
}

// An abandoned resume settles what its resolution settled without running
// anything: a denied call keeps its denial, an approved one is reported
// as of unknown outcome.
func TestAbandonResumeClosesTheBatch(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	d := &deployTool{}
	entered, release := make(chan struct{}), make(chan struct{})
	gate := tool.New("gate", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("", nil)
		}
		close(entered)
		<-release
		return tool.JSON("opened"), nil
	})
	a := agent.NewBuilder(model.NewTestModel(
		calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"}), model.Call("call_gate", "gate", map[string]any{})),
		text("late"),
	)).Tool(d.tool(), gate).StateKey(storeKey).SessionStore(st).MustBuild()
	s := a.NewSession()
	if res, err := s.Run(ctx, "go"); err != nil || len(res.Pending) != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	var res agent.Resolution
	for _, p := range s.Pending() {
		res.Approvals = append(res.Approvals, agent.ApprovalDecision{ID: p.ID, Approved: p.ToolName == "gate", Reason: "no deploys today"})
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Resume(ctx, res)
		done <- err
	}()
	<-entered
	o, err := a.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := o.AbandonResume(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := o.Messages()
	if err := agent.ValidateHistory(msgs); err != nil {
		t.Fatalf("the abandoned history is not valid: %v", err)
	}
	rets := msgs[len(msgs)-1].Returns()
	if len(rets) != 2 || rets[0].ErrorKind() != tool.ErrorKindApprovalDenied || rets[1].ErrorKind() != tool.ErrorKindCancelled {
		t.Fatalf("returns of the abandoned batch: %+v", rets)
	}
	if rets[1].Metadata[tool.MetaApprovalID] == nil {
		t.Fatalf("the unknown return does not name its approval: %+v", rets[1].Metadata)
	}
	close(release)
	if err := <-done; !errors.Is(err, agent.ErrSessionConflict) {
		t.Fatalf("the abandoned resume's save: err = %v, want ErrSessionConflict", err)
	}
	if d.calls.Load() != 1 {
		t.Fatalf("the denied deploy ran: %d calls", d.calls.Load())
	}
}

// A claimed resume travels in exported state: an agent without a store
// restores it, refuses to run it, and can abandon it in memory.
func TestClaimedStateRestoredWithoutStore(t *testing.T) {
	ctx := context.Background()
	st := &session.MemoryStore{}
	entered, release := make(chan struct{}), make(chan struct{})
	blocking := tool.New("deploy", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("", nil)
		}
		close(entered)
		<-release
		return tool.JSON("deployed"), nil
	})
	a := agent.NewBuilder(model.NewTestModel(calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})), text("done"))).
		Tool(blocking).StateKey(storeKey).SessionStore(st).MustBuild()
	s := a.NewSession()
	if _, err := s.Run(ctx, "deploy"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Resume(ctx, approve(s))
		done <- err
	}()
	<-entered
	claimed := mustLoad(t, st, s.ID()).State
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	plain := agent.NewBuilder(model.NewTestModel(text("ok"))).StateKey(storeKey).MustBuild()
	r, err := plain.SessionFromState(claimed)
	if err != nil {
		t.Fatalf("restoring a claimed state (its tool is gone): %v", err)
	}
	if c, ok := r.ClaimedResume(); !ok || len(c.Pending) != 1 {
		t.Fatalf("claimed resume = %+v, %v", c, ok)
	}
	if _, err := r.Run(ctx, "hi"); !errors.Is(err, agent.ErrResumeClaimed) {
		t.Fatalf("run: err = %v, want ErrResumeClaimed", err)
	}
	if err := r.AbandonResume(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := r.Run(ctx, "hi"); err != nil || res.Output != "ok" {
		t.Fatalf("%+v %v", res, err)
	}
}

func mustLoad(t *testing.T, st session.Store, id string) session.Record {
	t.Helper()
	rec, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// messagesIn counts the messages of a stored record.
func messagesIn(t *testing.T, a *agent.Agent, rec session.Record) int {
	t.Helper()
	s, err := a.SessionFromState(rec.State)
	if err != nil {
		t.Fatal(err)
	}
	return len(s.Messages())
}

func approve(s *agent.Session) agent.Resolution {
	var res agent.Resolution
	for _, p := range s.Pending() {
		res.Approvals = append(res.Approvals, agent.ApprovalDecision{ID: p.ID, Approved: true})
	}
	return res
}
