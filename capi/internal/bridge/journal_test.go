package bridge

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
	"github.com/starweaver-go/starweaver/core/tool"
)

// journaledSpec is an agent over the store handle st (sessions and
// journal) with the host tool "send" (id 1), answering with responses.
func journaledSpec(t *testing.T, st int64, responses ...model.Message) agentSpec {
	t.Helper()
	h := handles.add(&modelHandle{m: model.NewTestModel(responses...)})
	t.Cleanup(func() { handles.remove(h) })
	key := storeKey
	return agentSpec{Model: h, StateKey: &key, SessionStore: st, EffectJournal: st,
		Tools: []toolSpec{{ID: 1, Definition: tool.Definition{Name: "send"}}}}
}

// settleDatabases makes the test end only once the databases its agents
// hold are closed: an agent keeps its stores' database until it is
// collected, and later tests count the open databases. Call it before the
// test opens any store, so that it runs after their handles are released.
func settleDatabases(t *testing.T) {
	t.Helper()
	before := openDatabases()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for openDatabases() > before {
			if time.Now().After(deadline) {
				t.Errorf("%d databases stayed open after the test", openDatabases()-before)
				return
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond) // the cleanups run on their own goroutine after a GC
		}
	})
}

// runSession starts spec's run on s and serves it, answering calls with
// answer; it returns the done item.
func runSession(t *testing.T, s *agent.Session, spec runSpec, answer func(hostItem) string) hostItem {
	t.Helper()
	rh, run, err := startRun(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		handles.remove(rh)
		run.close()
	}()
	return host(t, run, answer)
}

// An agent spec's "effect_journal" journals host tool calls; a worker that
// stopped after a call ran leaves the session in flight (sw_session_info
// says so, runs are refused with code "run_in_flight"), and a run spec
// {"recover": true} continues it without calling the host again.
func TestEffectJournalRecoversThroughTheABI(t *testing.T) {
	noLeaks(t)
	settleDatabases(t)
	ctx := context.Background()
	st := openStoreHandle(t, sqliteSpec(filepath.Join(t.TempDir(), "sw.db")))
	sh, err := lookup[*storeHandle](st)
	if err != nil {
		t.Fatal(err)
	}
	sessions := sqlite.NewSessionStore(sh.db.sqlite)

	first, err := buildAgent(journaledSpec(t, st, model.CallsResponse(model.Call("c1", "send", map[string]any{})), model.Response(model.TextPart("sent"))))
	if err != nil {
		t.Fatal(err)
	}
	s := first.NewSession()
	var calls atomic.Int32
	var checkpoint []byte // the stored state while the call ran
	done := runSession(t, s, runSpec{Prompt: "send it"}, func(hostItem) string {
		calls.Add(1)
		rec, err := sessions.Load(ctx, s.ID())
		if err != nil {
			t.Error(err)
		}
		checkpoint = rec.State
		return `{"ok":true,"content":"delivered"}`
	})
	if done.Error != nil || done.Result.Output != "sent" || calls.Load() != 1 {
		t.Fatalf("first run: %+v %+v, %d calls", done.Result, done.Error, calls.Load())
	}
	// The worker stopped right after the call: the store holds the
	// checkpoint.
	cur, err := sessions.Load(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.Save(ctx, s.ID(), checkpoint, cur.Revision); err != nil {
		t.Fatal(err)
	}

	second, err := buildAgent(journaledSpec(t, st, model.Response(model.TextPart("sent, recovered"))))
	if err != nil {
		t.Fatal(err)
	}
	r, err := openSessionByID(second, s.ID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(infoOf(r))
	var got struct {
		InFlight *inFlightInfo `json:"in_flight"`
	}
	if err := json.Unmarshal(info, &got); err != nil || got.InFlight == nil || len(got.InFlight.Calls) != 1 ||
		got.InFlight.Calls[0] != (inFlightCall{ID: "c1", Name: "send"}) {
		t.Fatalf("sw_session_info: %s", info)
	}
	refused := runSession(t, r, runSpec{Prompt: "hello"}, func(hostItem) string { return `{"ok":true,"content":"x"}` })
	if refused.Error == nil || refused.Error.Type != "state" || refused.Error.Code != "run_in_flight" {
		t.Fatalf("a run of a session in flight: %+v", refused.Error)
	}
	recovered := runSession(t, r, runSpec{Recover: true}, func(hostItem) string {
		calls.Add(1)
		return `{"ok":true,"content":"delivered twice"}`
	})
	if recovered.Error != nil || recovered.Result.Output != "sent, recovered" || calls.Load() != 1 {
		t.Fatalf("recovery: %+v %+v, %d host calls in all", recovered.Result, recovered.Error, calls.Load())
	}
	info, _ = json.Marshal(infoOf(r))
	if err := json.Unmarshal(info, &got); err != nil || got.InFlight != nil {
		t.Fatalf("after recovery: %s", info)
	}
	recoveredAgain := runSession(t, r, runSpec{Recover: true}, func(hostItem) string { return `{"ok":true,"content":"x"}` })
	if recoveredAgain.Error == nil || recoveredAgain.Error.Type != "state" {
		t.Fatalf("recovering a session with nothing in flight: %+v", recoveredAgain.Error)
	}
}

func TestEffectJournalSpecErrors(t *testing.T) {
	noLeaks(t)
	settleDatabases(t)
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	spec := journaledSpec(t, st)
	spec.EffectRecovery = "sometimes"
	if _, err := buildAgent(spec); toABIError(err).Type != "invalid_spec" ||
		toABIError(err).Message != `unknown "effect_recovery" "sometimes" (want "reject_ambiguous" or "retry_safe")` {
		t.Fatalf("unknown effect_recovery: %v", err)
	}
	spec = journaledSpec(t, st)
	spec.EffectJournal, spec.EffectRecovery = 0, "retry_safe"
	if _, err := buildAgent(spec); toABIError(err).Type != "invalid_spec" {
		t.Fatalf("effect_recovery without a journal: %v", err)
	}
	spec = journaledSpec(t, st)
	spec.EffectJournal = spec.Model // not a store
	if _, err := buildAgent(spec); toABIError(err).Type != "bad_handle" {
		t.Fatalf("a journal that is not a store: %v", err)
	}
	spec = journaledSpec(t, st)
	spec.EffectRecovery = "retry_safe"
	a, err := buildAgent(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range []runSpec{{Recover: true, Prompt: "x"}, {Recover: true, Resume: &agent.Resolution{}}} {
		if _, _, err := startRun(a.NewSession(), rs); toABIError(err).Type != "invalid_spec" {
			t.Fatalf("run spec %+v: %v", rs, err)
		}
	}
}
