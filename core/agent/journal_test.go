package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/tool"
)

// tape is a session store that keeps every state saved, so that a test can
// put a session back to what the store held at an earlier save: what a
// worker that stopped right after that save would have left.
type tape struct {
	session.Store
	mu    sync.Mutex
	saves [][]byte
}

// newTape records the saves of st (a session.MemoryStore when nil).
func newTape(st session.Store) *tape {
	if st == nil {
		st = &session.MemoryStore{}
	}
	return &tape{Store: st}
}

func (t *tape) Save(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
	rev, err := t.Store.Save(ctx, id, state, expected)
	if err == nil {
		t.mu.Lock()
		t.saves = append(t.saves, bytes.Clone(state))
		t.mu.Unlock()
	}
	return rev, err
}

// rewind stores again the first state saved that holds key (in_flight,
// resuming): the session as its worker left it when it stopped there.
func (t *tape) rewind(tb testing.TB, id, key string) {
	tb.Helper()
	ctx := context.Background()
	t.mu.Lock()
	saves := t.saves
	t.mu.Unlock()
	for _, s := range saves {
		var env struct {
			State map[string]json.RawMessage `json:"state"`
		}
		if err := json.Unmarshal(s, &env); err != nil {
			tb.Fatal(err)
		}
		if _, ok := env.State[key]; !ok {
			continue
		}
		cur, err := t.Load(ctx, id)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := t.Store.Save(ctx, id, s, cur.Revision); err != nil {
			tb.Fatal(err)
		}
		return
	}
	tb.Fatalf("no saved state holds %q", key)
}

// sendTool is a non-idempotent tool that counts what it sent.
func sendTool(sent *atomic.Int32) *tool.Function {
	return tool.New("send", "Send a message", map[string]any{
		"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}},
	}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		sent.Add(1)
		return tool.JSON(map[string]any{"sent": true}), nil
	}).WithEffect(effect.ClassNonIdempotentWrite)
}

// journaledAgent is an agent over the session store st and the journal j
// whose model answers with responses.
func journaledAgent(st session.Store, j effect.Store, m model.Model, tools []tool.Tool, opts ...agent.JournalOption) *agent.Agent {
	return agent.NewBuilder(m).Tool(tools...).StateKey(storeKey).SessionStore(st).EffectJournal(j, opts...).MustBuild()
}

// lastReturn is the return of call id in msgs.
func lastReturn(t *testing.T, msgs []model.Message, id string) tool.Return {
	t.Helper()
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Parts {
			if p.Kind == model.KindToolReturn && p.Return != nil && p.Return.ToolCallID == id {
				return *p.Return
			}
		}
	}
	t.Fatalf("no return of call %s", id)
	return tool.Return{}
}

// Before a batch runs, the session is saved with the run in flight: a
// worker loading the session while the calls run sees it and may not run
// the session.
func TestCheckpointPrecedesTheCalls(t *testing.T) {
	ctx := context.Background()
	st, j := &session.MemoryStore{}, effect.NewMemoryStore()
	other := journaledAgent(st, j, model.TextModel("unused"), nil)
	var seen atomic.Pointer[string]
	probe := tool.New("probe", "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		s, err := other.OpenSession(ctx, tc.ConversationID)
		if err != nil {
			return tool.Result{}, err
		}
		f, ok := s.InFlight()
		_, runErr := s.Run(ctx, "meanwhile")
		msg := "no run in flight"
		if ok && f.RunID == tc.RunID && f.Step == 0 && len(f.Calls) == 1 && f.Calls[0].ID == "c1" && errors.Is(runErr, agent.ErrRunInFlight) {
			msg = "in flight"
		}
		seen.Store(&msg)
		return tool.Text("ok"), nil
	}).WithEffect(effect.ClassIdempotentWrite)
	a := journaledAgent(st, j, model.NewTestModel(calls(model.Call("c1", "probe", map[string]any{})), text("done")), []tool.Tool{probe})
	s := a.NewSession()
	if _, err := s.Run(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got == nil || *got != "in flight" {
		t.Fatalf("while the call ran, the store held: %v", got)
	}
	// The run's end clears the checkpoint.
	after, err := other.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := after.InFlight(); ok {
		t.Fatal("a finished run is still in flight")
	}
}

// A worker stopped after a non-idempotent call completed and before its
// run ended: recovering the session replays the call's recorded return
// (the message is not sent again) and the run completes.
func TestRecoverReplaysCompletedCalls(t *testing.T) {
	ctx := context.Background()
	st, j := newTape(nil), effect.NewMemoryStore()
	var sent atomic.Int32
	first := journaledAgent(st, j, model.NewTestModel(calls(model.Call("c1", "send", map[string]string{"to": "ada"})), text("done")),
		[]tool.Tool{sendTool(&sent)})
	s := first.NewSession()
	if _, err := s.Run(ctx, "greet ada"); err != nil {
		t.Fatal(err)
	}
	st.rewind(t, s.ID(), "in_flight")

	m := model.NewTestModel(text("done after recovery"))
	second := journaledAgent(st, j, m, []tool.Tool{sendTool(&sent)})
	r, err := second.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	f, ok := r.InFlight()
	if !ok || f.Step != 0 || len(f.Calls) != 1 || f.Calls[0].Name != "send" {
		t.Fatalf("InFlight = %+v, %v", f, ok)
	}
	if _, err := r.Run(ctx, "hello"); !errors.Is(err, agent.ErrRunInFlight) || !errors.Is(err, agent.ErrState) {
		t.Fatalf("Run of a session in flight: %v", err)
	}
	res, err := r.Recover(ctx)
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "done after recovery" {
		t.Fatalf("Recover: %+v %v", res, err)
	}
	if sent.Load() != 1 {
		t.Fatalf("the message was sent %d times", sent.Load())
	}
	ret := lastReturn(t, res.Messages, "c1")
	if ret.Metadata[tool.MetaReplayed] != true || ret.IsError {
		t.Fatalf("the recovered call's return: %+v", ret)
	}
	// The model saw the recorded return, and the result counts the run
	// from its first message.
	if len(m.Requests()) != 1 || len(res.NewMessages) != 4 || res.NewMessages[0].Parts[0].Kind != model.KindUserPrompt {
		t.Fatalf("%d requests, new messages %d", len(m.Requests()), len(res.NewMessages))
	}
	again, err := second.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := again.InFlight(); ok {
		t.Fatal("the recovered session is still in flight in the store")
	}
	if _, err := again.Recover(ctx); !errors.Is(err, agent.ErrState) {
		t.Fatalf("recovering a session with nothing in flight: %v", err)
	}
}

// lossyJournal loses the completion of every effect: what the journal
// holds when a worker stops between running a call and recording it.
type lossyJournal struct{ effect.Store }

func (l lossyJournal) CompareAndSwap(ctx context.Context, rec effect.Record, expected uint64) error {
	if rec.Status.State == effect.StateCompleted {
		return errors.New("the worker stopped")
	}
	return l.Store.CompareAndSwap(ctx, rec, expected)
}

// A call whose record started and never completed is reported ambiguous
// on recovery and not run again, unless the policy allows a class that is
// safe to repeat; the run goes on either way.
func TestRecoverStartedCalls(t *testing.T) {
	cases := []struct {
		name      string
		cls       effect.Class
		opts      []agent.JournalOption
		sent      int32
		ambiguous bool
	}{
		{"non-idempotent", effect.ClassNonIdempotentWrite, nil, 1, true},
		{"non-idempotent, retry_safe", effect.ClassNonIdempotentWrite, []agent.JournalOption{agent.JournalRecovery(effect.RecoveryRetrySafe)}, 1, true},
		{"idempotent", effect.ClassIdempotentWrite, nil, 1, true},
		{"idempotent, retry_safe", effect.ClassIdempotentWrite, []agent.JournalOption{agent.JournalRecovery(effect.RecoveryRetrySafe)}, 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st, j := newTape(nil), effect.NewMemoryStore()
			var sent atomic.Int32
			send := func() tool.Tool { return sendTool(&sent).WithEffect(c.cls) }
			first := journaledAgent(st, lossyJournal{j}, model.NewTestModel(calls(model.Call("c1", "send", map[string]string{"to": "ada"})), text("done")),
				[]tool.Tool{send()})
			s := first.NewSession()
			res, err := s.Run(ctx, "greet ada")
			if err != nil || lastReturn(t, res.Messages, "c1").Metadata[tool.MetaJournalError] == nil {
				t.Fatalf("first run: %v; the lost completion is not reported", err)
			}
			st.rewind(t, s.ID(), "in_flight")

			m := model.NewTestModel(text("recovered"))
			r, err := journaledAgent(st, j, m, []tool.Tool{send()}, c.opts...).OpenSession(ctx, s.ID())
			if err != nil {
				t.Fatal(err)
			}
			res, err = r.Recover(ctx)
			if err != nil || res.Output != "recovered" {
				t.Fatalf("Recover: %+v %v", res, err)
			}
			if sent.Load() != c.sent {
				t.Fatalf("sent %d times, want %d", sent.Load(), c.sent)
			}
			ret := lastReturn(t, res.Messages, "c1")
			if amb, _ := ret.Metadata[tool.MetaAmbiguous].(bool); amb != c.ambiguous || ret.IsError != c.ambiguous {
				t.Fatalf("return %+v", ret)
			}
			if c.ambiguous {
				msg, _ := ret.Content.(map[string]any)["message"].(string)
				if !strings.Contains(msg, "may already have taken effect") {
					t.Fatalf("message %q", msg)
				}
				// The model read the ambiguous return.
				got := m.Requests()[0].Messages
				if lastReturn(t, got, "c1").Metadata[tool.MetaAmbiguous] != true {
					t.Fatal("the model was not told")
				}
			}
		})
	}
}

// Two workers recovering the same stored state: the session's
// compare-and-swap lets one go on; the other runs nothing.
func TestRecoverRace(t *testing.T) {
	ctx := context.Background()
	st, j := newTape(nil), effect.NewMemoryStore()
	var sent atomic.Int32
	first := journaledAgent(st, j, model.NewTestModel(calls(model.Call("c1", "send", map[string]string{"to": "ada"})), text("done")),
		[]tool.Tool{sendTool(&sent)})
	s := first.NewSession()
	if _, err := s.Run(ctx, "greet ada"); err != nil {
		t.Fatal(err)
	}
	st.rewind(t, s.ID(), "in_flight")
	var requests atomic.Int32
	m := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		requests.Add(1)
		return text("recovered"), nil
	})
	a := journaledAgent(st, j, m, []tool.Tool{sendTool(&sent)})
	var sessions [2]*agent.Session
	for i := range sessions {
		var err error
		if sessions[i], err = a.OpenSession(ctx, s.ID()); err != nil {
			t.Fatal(err)
		}
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i, r := range sessions {
		wg.Go(func() { _, errs[i] = r.Recover(ctx) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, agent.ErrSessionConflict):
			t.Fatalf("the losing recovery failed with %v, want ErrSessionConflict", err)
		}
	}
	if won != 1 || requests.Load() != 1 || sent.Load() != 1 {
		t.Fatalf("%d recoveries won, %d model requests, %d sends", won, requests.Load(), sent.Load())
	}
}

// A worker stopped during a claimed resume, after the approved call ran:
// recovery applies the answers again, the approved call replays, and the
// run completes.
func TestRecoverClaimedResume(t *testing.T) {
	ctx := context.Background()
	st, j := newTape(nil), effect.NewMemoryStore()
	d := &deployTool{}
	build := func(m model.Model) *agent.Agent {
		// The tool asks for its approval itself: the destructive policy
		// lets it, so that the approval it asks for is the one resumed.
		return agent.NewBuilder(m).Tool(d.tool().WithEffect(effect.ClassDestructive)).DestructivePolicy(tool.DestructiveAllow, nil).
			StateKey(storeKey).SessionStore(st).EffectJournal(j).MustBuild()
	}
	first := build(model.NewTestModel(calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})), text("deployed")))
	s := first.NewSession()
	res, err := s.Run(ctx, "deploy")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	res, err = s.Resume(ctx, agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "call_deploy", Approved: true}}})
	if err != nil || res.Status != agent.StatusCompleted || d.calls.Load() != 2 {
		t.Fatalf("resume: %+v %v (deploy ran %d times)", res, err, d.calls.Load())
	}
	st.rewind(t, s.ID(), "resuming")

	r, err := build(model.NewTestModel(text("deployed, recovered"))).OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.ClaimedResume(); !ok {
		t.Fatal("the session does not report its claimed resume")
	}
	res, err = r.Recover(ctx)
	if err != nil || res.Output != "deployed, recovered" {
		t.Fatalf("Recover: %+v %v", res, err)
	}
	if d.calls.Load() != 2 {
		t.Fatalf("deploy ran %d times in all, want 2 (paused, then approved)", d.calls.Load())
	}
	if ret := lastReturn(t, res.Messages, "call_deploy"); ret.Metadata[tool.MetaReplayed] != true || ret.IsError {
		t.Fatalf("the approved call's return: %+v", ret)
	}
}

// A resume claimed by a worker without a journal cannot be recovered: no
// journal says whether its approved call ran.
func TestRecoverRefusesAClaimMadeWithoutAJournal(t *testing.T) {
	ctx := context.Background()
	st, j := newTape(nil), effect.NewMemoryStore()
	d := &deployTool{}
	m := model.NewTestModel(calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})), text("deployed"))
	s := agent.NewBuilder(m).Tool(d.tool()).StateKey(storeKey).SessionStore(st).MustBuild().NewSession()
	if res, err := s.Run(ctx, "deploy"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	if _, err := s.Resume(ctx, agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "call_deploy", Approved: true}}}); err != nil {
		t.Fatal(err)
	}
	st.rewind(t, s.ID(), "resuming")
	r, err := journaledAgent(st, j, model.TextModel("x"), []tool.Tool{d.tool()}).OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Recover(ctx); !errors.Is(err, agent.ErrResumeClaimed) {
		t.Fatalf("Recover: %v, want ErrResumeClaimed", err)
	}
	if d.calls.Load() != 2 {
		t.Fatalf("deploy ran %d times, want 2 (paused, then approved once)", d.calls.Load())
	}
}

func TestRecoverRefusals(t *testing.T) {
	ctx := context.Background()
	st, j := newTape(nil), effect.NewMemoryStore()
	var sent atomic.Int32
	a := journaledAgent(st, j, model.NewTestModel(calls(model.Call("c1", "send", map[string]string{"to": "ada"})), text("done")),
		[]tool.Tool{sendTool(&sent)})
	s := a.NewSession()
	if _, err := s.Run(ctx, "greet"); err != nil {
		t.Fatal(err)
	}
	st.rewind(t, s.ID(), "in_flight")

	// Without a journal the calls would simply run again.
	plain := agent.NewBuilder(model.TextModel("x")).Tool(sendTool(&sent)).StateKey(storeKey).SessionStore(st).MustBuild()
	r, err := plain.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Recover(ctx); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("Recover without a journal: %v", err)
	}
	if _, err := r.Resume(ctx, agent.Resolution{}); !errors.Is(err, agent.ErrRunInFlight) {
		t.Fatalf("Resume of a session in flight: %v", err)
	}
	if _, err := agent.NewBuilder(model.TextModel("x")).EffectJournal(j, agent.JournalRecovery("sometimes")).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("an unknown recovery policy: %v", err)
	}
	if _, err := agent.NewBuilder(model.TextModel("x")).EffectJournal(nil).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("a nil journal: %v", err)
	}
	if sent.Load() != 1 {
		t.Fatalf("sent %d times", sent.Load())
	}
}
