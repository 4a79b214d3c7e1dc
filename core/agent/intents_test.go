package agent_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
	"github.com/starweaver-go/starweaver/core/tool"
)

// declaring is a tool that returns {"queued": <n>} and declares, for each
// process name in its arguments, a start of that process, with the
// session it reads from its context.
func declaring(name string, runs *atomic.Int32) *tool.Function {
	return tool.New(name, "Queue reports", map[string]any{
		"type": "object", "properties": map[string]any{"reports": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
	}, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		if runs != nil {
			runs.Add(1)
		}
		var a struct{ Reports []string }
		if err := json.Unmarshal(args, &a); err != nil {
			return tool.Result{}, err
		}
		var in []intent.Intent
		for _, r := range a.Reports {
			in = append(in, &intent.StartProcess{SessionID: tc.ConversationID,
				Request: intent.ProcessStartRequest{Originator: r, Input: json.RawMessage(`{"report":"` + r + `"}`)}})
		}
		return tool.Result{Content: map[string]any{"queued": len(a.Reports)}, Intents: intent.V1(in...)}, nil
	})
}

func TestIntentsAreRealisedOnceAfterTheCallAndShownToHostAndModel(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	m := model.NewTestModel(calls(model.Call("call-1", "queue", map[string]any{"reports": []string{"a", "b"}})), text("done"))
	a := agent.NewBuilder(m).Tool(declaring("queue", nil)).IntentJournal(j).MustBuild()
	s := a.NewSession()
	res, err := s.Run(ctx, "queue a and b")
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("run: %+v %v", res, err)
	}
	ret := lastReturn(t, res.Messages, "call-1")
	outs, err := agent.IntentOutcomes(ret)
	if err != nil || len(outs) != 2 {
		t.Fatalf("outcomes %+v %v", outs, err)
	}
	local := intent.NewLocal(j)
	for i, o := range outs {
		ex, ok := o.(intent.Executed)
		if !ok {
			t.Fatalf("outcome %d: %+v", i, o)
		}
		want, _ := intent.DeriveIdentity(s.ID(), agent.TurnScope(res.RunID, 0).ID, "call-1", i)
		if ex.Identity != want {
			t.Fatalf("outcome %d identity %+v, want %+v", i, ex.Identity, want)
		}
		if st, err := local.Process(ctx, want.ReplayKey); err != nil || st.Status != intent.ProcessRunning {
			t.Fatalf("process %s: %+v %v", want.ReplayKey, st, err)
		}
	}
	// The model reads the addenda after the tool's output.
	seen := lastReturn(t, m.Requests()[1].Messages, "call-1")
	content, _ := seen.Content.(string)
	if !strings.HasPrefix(content, `{"queued":2}`+"\n[tool intent start_process #0 executed: ") ||
		!strings.Contains(content, "\n[tool intent start_process #1 executed: ") {
		t.Fatalf("the model read %q", content)
	}
	// The ingress over the same journal refuses the identity a tool realised.
	in, err := a.ToolIntents(s.ID(), agent.TurnScope(res.RunID, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Submit(ctx, in.Key("call-1", 0), &intent.CancelProcess{SessionID: s.ID(), ProcessID: "x"})
	if !errors.Is(err, intent.ErrDuplicateIdentity) {
		t.Fatalf("a submit under a tool's identity: %v", err)
	}
	// The turn's end settles the started processes' default policy: cancel.
	settled, err := in.SettleParentEnd(ctx)
	if err != nil || len(settled) != 2 || settled[0].Result != intent.ParentEndCancelled {
		t.Fatalf("settled %+v %v", settled, err)
	}
}

func TestIntentsOfRetriedAttemptsAreDiscarded(t *testing.T) {
	ctx := context.Background()
	attempts := 0
	flaky := tool.New("flaky", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		attempts++
		in := intent.V1(&intent.EmitTrigger{SessionID: tc.ConversationID, Request: intent.TriggerRequest{
			SessionID: tc.ConversationID, Trigger: fmt.Sprintf("attempt-%d", attempts), IdempotencyKey: fmt.Sprintf("k%d", attempts)}})
		if attempts == 1 {
			return tool.Result{Intents: in}, errors.New("transient")
		}
		return tool.Result{Content: "ok", Intents: in}, nil
	})
	j := intent.NewMemoryJournal()
	m := model.NewTestModel(calls(model.Call("c", "flaky", map[string]any{})), text("done"))
	s := agent.NewBuilder(m).Tool(flaky).IntentJournal(j).MustBuild().NewSession()
	if _, err := s.Run(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	trig, err := intent.NewLocal(j).Triggers(ctx, s.ID())
	if err != nil || len(trig) != 1 || trig[0].Request.Trigger != "attempt-2" {
		t.Fatalf("triggers %+v %v", trig, err)
	}
}

func TestIntentsNeedAnIntentJournal(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c", "queue", map[string]any{"reports": []string{"a"}})), text("done"))
	res, err := agent.NewBuilder(m).Tool(declaring("queue", nil)).MustBuild().NewSession().Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if ret := lastReturn(t, res.Messages, "c"); ret.ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("return %+v", ret)
	}
	if _, err := agent.NewBuilder(m).MustBuild().ToolIntents("s", intent.ProcessScope("p")); !errors.Is(err, agent.ErrNoIntents) {
		t.Fatalf("ToolIntents without a journal: %v", err)
	}
}

// orderedCommands records the replay keys of the starts it executes.
type orderedCommands struct {
	*intent.Local
	mu   sync.Mutex
	keys []string
}

func (c *orderedCommands) StartProcess(ctx context.Context, key string, in *intent.StartProcess) (json.RawMessage, error) {
	c.mu.Lock()
	c.keys = append(c.keys, key)
	c.mu.Unlock()
	return c.Local.StartProcess(ctx, key, in)
}

func TestBatchChildrenIntentsDrainInCallOrderThenIndex(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	cmds := &orderedCommands{Local: intent.NewLocal(j)}
	args := map[string]any{"tool_calls": []any{
		map[string]any{"tool": "q0", "parameters": map[string]any{"reports": []string{"a", "b"}}},
		map[string]any{"tool": "q1", "parameters": map[string]any{"reports": []string{"c"}}},
		map[string]any{"tool": "q2", "parameters": map[string]any{"reports": []string{"d", "e"}}},
	}}
	m := model.NewTestModel(calls(model.Call("P", batch.Name, args)), text("done"))
	a := agent.NewBuilder(m).Tool(declaring("q0", nil), declaring("q1", nil), declaring("q2", nil)).BatchTool(true).
		Intents(&intent.Realiser{Journal: j, Commands: cmds}).MustBuild()
	s := a.NewSession()
	res, err := s.Run(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	scope := agent.TurnScope(res.RunID, 0).ID
	var want []string
	for _, c := range []struct {
		child string
		n     int
	}{{"P:00", 2}, {"P:01", 1}, {"P:02", 2}} {
		for i := range c.n {
			id, _ := intent.DeriveIdentity(s.ID(), scope, c.child, i)
			want = append(want, id.ReplayKey)
		}
	}
	if strings.Join(cmds.keys, ",") != strings.Join(want, ",") {
		t.Fatalf("drain order\n got %v\nwant %v", cmds.keys, want)
	}
	var out batch.Output
	ret := lastReturn(t, res.Messages, "P")
	b, _ := json.Marshal(ret.Content)
	if err := json.Unmarshal(b, &out); err != nil || len(out.Results) != 3 {
		t.Fatalf("batch output %s: %v", b, err)
	}
	if r, _ := out.Results[1].Result.(string); !strings.Contains(r, "[tool intent start_process #0 executed: ") {
		t.Fatalf("child 1's result %v", out.Results[1].Result)
	}
}

func TestIntentHostIngressReplaysADuplicateSubmit(t *testing.T) {
	ctx := context.Background()
	a := agent.NewBuilder(model.TextModel("ok")).IntentJournal(intent.NewMemoryJournal()).MustBuild()
	in, err := a.ToolIntents("session-1", intent.ProcessScope("host"))
	if err != nil {
		t.Fatal(err)
	}
	start := &intent.StartProcess{SessionID: "session-1", Request: intent.ProcessStartRequest{Originator: "worker"}, OnParentEnd: intent.ParentEndAbandon}
	first, err := in.Submit(ctx, in.Key("spawn", 0), start)
	if err != nil || first.Replayed {
		t.Fatalf("first submit %+v %v", first, err)
	}
	again, err := in.Submit(ctx, in.Key("spawn", 0), start)
	if err != nil || !again.Replayed {
		t.Fatalf("second submit %+v %v", again, err)
	}
	b1, _ := json.Marshal(first.Outcome)
	b2, _ := json.Marshal(again.Outcome)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("outcomes differ:\n%s\n%s", b1, b2)
	}
	settled, err := in.SettleParentEnd(ctx)
	if err != nil || len(settled) != 1 || settled[0].Result != intent.ParentEndAbandoned {
		t.Fatalf("settled %+v %v", settled, err)
	}
}

// Crash test: a worker process (this test binary, running
// TestIntentCrashWorker) runs an agent over SQLite whose tool declares
// two process starts; it is killed with SIGKILL at a pause point of the
// realisation, and the test recovers the session from the same file: the
// tool does not run again and each intent is realised exactly once.

const (
	// The pause point to be killed at, "<point>" or "<point>#<n>" for its
	// n-th occurrence (from 1).
	intentCrashEnvPoint = "STARWEAVER_INTENT_CRASH_POINT"
	intentCrashEnvDB    = "STARWEAVER_INTENT_CRASH_DB"
	// intentCrashEnvBatch, when set, makes the model call the batch tool
	// with two children that declare intents.
	intentCrashEnvBatch = "STARWEAVER_INTENT_CRASH_BATCH"
)

func intentCrashAgent(t testing.TB, db *sqlite.DB, m model.Model, runs *atomic.Int32, pause intent.PauseFunc) *agent.Agent {
	t.Helper()
	a, err := agent.NewBuilder(m).Tool(declaring("queue", runs).WithEffect(effect.ClassNonIdempotentWrite),
		declaring("queue2", runs).WithEffect(effect.ClassReadOnly)).BatchTool(true).StateKey(storeKey).
		// retry_safe: the batch call itself (undeclared) is run again when the
		// kill left its effect record started; its children are journaled.
		SessionStore(sqlite.NewSessionStore(db)).EffectJournal(sqlite.NewEffectStore(db), agent.JournalRecovery(effect.RecoveryRetrySafe)).
		Intents(&intent.Realiser{Journal: sqlite.NewIntentJournal(db), Pause: pause}).Build()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestIntentCrashWorker is the child process of the intent crash tests
// (skipped otherwise): it prints "ready <session id>" at the pause point
// its environment names, then waits to be killed.
func TestIntentCrashWorker(t *testing.T) {
	point := os.Getenv(intentCrashEnvPoint)
	if point == "" {
		t.Skip("a child process of the intent crash tests")
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, os.Getenv(intentCrashEnvDB))
	if err != nil {
		t.Fatal(err)
	}
	var id string
	point, nth, _ := strings.Cut(point, "#")
	var seen atomic.Int32
	pause := func(_ context.Context, p intent.PausePoint) {
		if p.String() == point && fmt.Sprint(seen.Add(1)) == cmp.Or(nth, "1") {
			fmt.Printf("ready %s\n", id)
			time.Sleep(crashWait) // wait to be killed; the bound only keeps an orphan from living on
		}
	}
	m := model.NewTestModel(calls(model.Call("call-q", "queue", map[string]any{"reports": []string{"a", "b"}})), text("unreachable"))
	if os.Getenv(intentCrashEnvBatch) != "" {
		m = model.NewTestModel(calls(model.Call("call-b", batch.Name, batchOfTwo)), text("unreachable"))
	}
	s := intentCrashAgent(t, db, m, nil, pause).NewSession()
	id = s.ID()
	_, err = s.Run(ctx, "queue")
	t.Fatalf("the worker was not killed (run ended with %v)", err)
}

// intentCrashChild runs a worker to point and kills it; it returns the
// session id.
func intentCrashChild(t *testing.T, point, dbPath string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIntentCrashWorker$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), intentCrashEnvPoint+"="+point, intentCrashEnvDB+"="+dbPath), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- id
				break
			}
		}
		_, _ = bufio.NewReader(out).WriteTo(&bytes.Buffer{})
		exited <- cmd.Wait()
	}()
	var id string
	select {
	case id = <-ready:
	case err := <-exited:
		t.Fatalf("the worker exited before it was ready: %v\n%s", err, stderr.String())
	case <-time.After(crashWait):
		_ = cmd.Process.Kill()
		t.Fatalf("the worker was not ready within %v\n%s", crashWait, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited
	return id
}

func TestIntentCrashRedriveRealisesEachIntentOnce(t *testing.T) {
	for _, point := range []string{"after_tool_attempt_commit", "before_process_command(1)", "after_process_command_commit(0)"} {
		t.Run(point, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), crashWait)
			defer cancel()
			dbPath := filepath.Join(t.TempDir(), "sw.db")
			id := intentCrashChild(t, point, dbPath)
			db, err := sqlite.Open(ctx, dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var runs atomic.Int32
			a := intentCrashAgent(t, db, model.NewTestModel(text("queued")), &runs, nil)
			s, err := a.OpenSession(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Recover(ctx)
			if err != nil || res.Status != agent.StatusCompleted {
				t.Fatalf("Recover: %+v %v", res, err)
			}
			if runs.Load() != 0 {
				t.Fatalf("the committed tool ran %d times again", runs.Load())
			}
			ret := lastReturn(t, res.Messages, "call-q")
			outs, err := agent.IntentOutcomes(ret)
			if err != nil || len(outs) != 2 {
				t.Fatalf("outcomes %+v %v", outs, err)
			}
			local := intent.NewLocal(sqlite.NewIntentJournal(db))
			for _, o := range outs {
				ex := o.(intent.Executed)
				st, err := local.Process(ctx, ex.Identity.ReplayKey)
				if err != nil || len(st.Entries) != 1 {
					t.Fatalf("process %s: %+v %v", ex.Identity.ReplayKey, st, err)
				}
			}
			// Realised again from the journal, the outcomes are the same bytes.
			r := a.IntentRealiser()
			call := intent.Call{Session: id, Scope: agent.TurnScope(res.RunID, 0), CallID: "call-q"}
			o, ok, err := r.Final(ctx, call)
			if err != nil || !ok {
				t.Fatalf("Final: %v %v", ok, err)
			}
			rep, err := r.Realise(ctx, call, o)
			if err != nil || !rep.Replayed {
				t.Fatalf("replay %+v %v", rep, err)
			}
			for i := range outs {
				b1, _ := json.Marshal(outs[i])
				b2, _ := json.Marshal(rep.Intents[i])
				if !bytes.Equal(b1, b2) {
					t.Fatalf("outcome %d differs:\n%s\n%s", i, b1, b2)
				}
			}
		})
	}
}

// batchOfTwo is a batch call whose children each declare two starts.
var batchOfTwo = map[string]any{"tool_calls": []any{
	map[string]any{"tool": "queue", "parameters": map[string]any{"reports": []string{"a", "b"}}},
	map[string]any{"tool": "queue2", "parameters": map[string]any{"reports": []string{"c", "d"}}},
}}

// A batch killed mid-drain (after its second child's commit, or after
// the batch call's own commit) is redriven: every intent is realised once
// and the children's outcomes are the recorded ones, byte for byte; once
// the batch call itself was committed, no child runs again.
func TestIntentCrashRedrivesABatch(t *testing.T) {
	for _, c := range []struct {
		point string
		reran bool
	}{
		{"after_tool_attempt_commit#2", true},  // child 1 committed, child 0 drained
		{"after_tool_attempt_commit#3", false}, // the batch call committed
	} {
		t.Run(c.point, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), crashWait)
			defer cancel()
			dbPath := filepath.Join(t.TempDir(), "sw.db")
			id := intentCrashChild(t, c.point, dbPath, intentCrashEnvBatch+"=1")
			db, err := sqlite.Open(ctx, dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var runs atomic.Int32
			a := intentCrashAgent(t, db, model.NewTestModel(text("queued")), &runs, nil)
			s, err := a.OpenSession(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Recover(ctx)
			if err != nil || res.Status != agent.StatusCompleted {
				t.Fatalf("Recover: %+v %v", res, err)
			}
			if got := runs.Load() > 0; got != c.reran {
				t.Fatalf("children ran %d times on the redrive", runs.Load())
			}
			var out batch.Output
			b, _ := json.Marshal(lastReturn(t, res.Messages, "call-b").Content)
			if err := json.Unmarshal(b, &out); err != nil || len(out.Results) != 2 {
				t.Fatalf("batch output %s: %v", b, err)
			}
			r := a.IntentRealiser()
			local := intent.NewLocal(sqlite.NewIntentJournal(db))
			for i, child := range []string{"call-b:00", "call-b:01"} {
				call := intent.Call{Session: id, Scope: agent.TurnScope(res.RunID, 0), CallID: child}
				o, ok, err := r.Final(ctx, call)
				if err != nil || !ok {
					t.Fatalf("child %s not committed: %v", child, err)
				}
				rep, err := r.Realise(ctx, call, o)
				if err != nil || len(rep.Intents) != 2 {
					t.Fatalf("child %s: %+v %v", child, rep, err)
				}
				text, _ := out.Results[i].Result.(string)
				for j, oc := range rep.Intents {
					ex := oc.(intent.Executed)
					if st, err := local.Process(ctx, ex.Identity.ReplayKey); err != nil || len(st.Entries) != 1 {
						t.Fatalf("process %s: %+v %v", ex.Identity.ReplayKey, st, err)
					}
					if !strings.Contains(text, oc.ModelAddendum()) {
						t.Fatalf("child %d intent %d: the batch output %q lacks %q", i, j, text, oc.ModelAddendum())
					}
				}
			}
		})
	}
}

// A call that asks for approval carries no intents; approved, it runs
// again and its intents are realised once, in the resumed run's turn.
func TestIntentsOfAnApprovedCallAreRealisedOnResume(t *testing.T) {
	ctx := context.Background()
	var runs atomic.Int32
	gated := tool.New("deploy", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("deploy?", nil)
		}
		runs.Add(1)
		return tool.Result{Content: "deployed", Intents: intent.V1(&intent.StartProcess{SessionID: tc.ConversationID,
			Request: intent.ProcessStartRequest{Originator: "deploy"}})}, nil
	})
	j := intent.NewMemoryJournal()
	m := model.NewTestModel(calls(model.Call("c-dep", "deploy", map[string]any{})), text("deployed it"))
	s := agent.NewBuilder(m).Tool(gated).IntentJournal(j).MustBuild().NewSession()
	res, err := s.Run(ctx, "deploy")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	res, err = s.Resume(ctx, agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c-dep", Approved: true}}})
	if err != nil || res.Status != agent.StatusCompleted || runs.Load() != 1 {
		t.Fatalf("resume: %+v %v (%d runs)", res, err, runs.Load())
	}
	outs, err := agent.IntentOutcomes(lastReturn(t, res.Messages, "c-dep"))
	if err != nil || len(outs) != 1 {
		t.Fatalf("outcomes %+v %v", outs, err)
	}
	ex := outs[0].(intent.Executed)
	if st, err := intent.NewLocal(j).Process(ctx, ex.Identity.ReplayKey); err != nil || len(st.Entries) != 1 {
		t.Fatalf("process: %+v %v", st, err)
	}
	if want := agent.TurnScope(res.RunID, 0).ID; ex.Identity.ExecutionScopeID != want {
		t.Fatalf("scope %q, want %q", ex.Identity.ExecutionScopeID, want)
	}
}
