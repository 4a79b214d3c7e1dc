package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Crash tests of durable children: the parent and its child agent keep
// their sessions and effect journals in one SQLite file; a worker process
// (TestAgentToolCrashWorker) is killed with SIGKILL inside the child's
// run or after it, and this process recovers the parent.

// courierAgents are the parent ("front", calling the child as the tool
// "courier") and the child ("courier", whose send appends to a file).
func courierAgents(t testing.TB, db *sqlite.DB, parentModel, childModel model.Model, send tool.Tool, policy effect.RecoveryPolicy) *agent.Agent {
	t.Helper()
	child, err := durableOn(agent.NewBuilder(childModel).Name("courier").Tool(send), db, agent.JournalRecovery(policy)).Build()
	if err != nil {
		t.Fatal(err)
	}
	at, err := agent.AsTool(child, agent.AsToolOptions{Description: "Delivers messages."})
	if err != nil {
		t.Fatal(err)
	}
	parent, err := durableOn(agent.NewBuilder(parentModel).Name("front").Tool(at), db, agent.JournalRecovery(policy)).Build()
	if err != nil {
		t.Fatal(err)
	}
	return parent
}

// The worker: the parent calls courier once; the child calls send once,
// then answers "sent". It prints "ready <parent session id>" and waits to
// be killed in the child's second request (child_after_tool: send ran,
// the child's run is in flight) or in the parent's second request
// (parent_after_child: the child's run ended).
func TestAgentToolCrashWorker(t *testing.T) {
	w := startCrashWorker(t, "a child process of the agent tool crash tests")
	mode, ready := w.mode, w.ready
	var parentAsked, childAsked atomic.Int32
	parentModel := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		if parentAsked.Add(1) == 1 {
			return calls(model.Call("call_courier", "courier", map[string]string{"prompt": "tell ada"})), nil
		}
		if mode == "parent_after_child" {
			ready()
		}
		return model.Message{}, fmt.Errorf("the worker was not killed")
	})
	childModel := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		if childAsked.Add(1) == 1 {
			return calls(model.Call("call_send", "send", map[string]string{"to": "ada"})), nil
		}
		if mode == "child_after_tool" {
			ready()
		}
		return text("sent"), nil
	})
	var runs atomic.Int32
	parent := courierAgents(t, w.db, parentModel, childModel, crashSend(os.Getenv(crashEnvEffects), &runs, nil), effect.RecoveryRetrySafe)
	s := parent.NewSession()
	w.id = s.ID()
	_, err := s.Run(context.Background(), "greet ada")
	t.Fatalf("the worker was not killed (run ended with %v)", err)
}

// recoverCourier recovers the parent session id from dbPath under policy;
// it returns the result, how often send ran here, and how often the
// child's model was asked here.
func recoverCourier(t *testing.T, dbPath, effects, id string, policy effect.RecoveryPolicy) (*agent.RunResult, int32, int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crashWait)
	defer cancel()
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var runs, childAsked atomic.Int32
	// As the worker's child: a fresh run would call send again, so a child
	// run again from its start shows as a second effect.
	childModel := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		childAsked.Add(1)
		if len(msgs[len(msgs)-1].Returns()) == 0 {
			return calls(model.Call("call_send", "send", map[string]string{"to": "ada"})), nil
		}
		return text("sent"), nil
	})
	parent := courierAgents(t, db, model.NewTestModel(text("ada was greeted")), childModel, crashSend(effects, &runs, nil), policy)
	s, err := parent.OpenSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := s.InFlight(); !ok || len(f.Calls) != 1 || f.Calls[0].ID != "call_courier" {
		t.Fatalf("the killed worker left no parent run in flight: %+v %v", f, ok)
	}
	res, err := s.Recover(ctx)
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "ada was greeted" {
		t.Fatalf("Recover: %+v %v", res, err)
	}
	return res, runs.Load(), childAsked.Load()
}

// crashCourier kills a worker in mode, recovers the parent under policy,
// and checks that send's effect happened once and that the child's model
// was asked asked times here; it returns the courier call's return.
func crashCourier(t *testing.T, mode string, policy effect.RecoveryPolicy, asked int32) tool.Return {
	t.Helper()
	dir := t.TempDir()
	dbPath, effects := filepath.Join(dir, "sw.db"), filepath.Join(dir, "effects.txt")
	id := crashChild(t, "TestAgentToolCrashWorker", mode, dbPath, effects)
	res, runs, gotAsked := recoverCourier(t, dbPath, effects, id, policy)
	if lines := effectLines(t, effects); len(lines) != 1 || runs != 0 || gotAsked != asked {
		t.Fatalf("effects %q, send ran %d times here, the child's model was asked %d times", lines, runs, gotAsked)
	}
	return lastReturn(t, res.Messages, "call_courier")
}

// Killed inside the child's run, after its effect: the recovered parent
// runs the call again, which finds the child's session and recovers it;
// the child's journal replays send, so the effect happened once, and the
// child finishes with its model's answer.
func TestAgentToolCrashMidChildRecoversTheChild(t *testing.T) {
	if ret := crashCourier(t, "child_after_tool", effect.RecoveryRetrySafe, 1); ret.IsError || returnText(ret.Content) != "sent" {
		t.Fatalf("the courier call returned %+v", ret)
	}
}

// Under the journal's default policy a call interrupted mid-child is
// ambiguous, as any other: it is not run again, and nothing ran twice.
func TestAgentToolCrashMidChildIsAmbiguousByDefault(t *testing.T) {
	if ret := crashCourier(t, "child_after_tool", effect.RecoveryRejectAmbiguous, 0); !ret.IsError || ret.Metadata[tool.MetaAmbiguous] != true {
		t.Fatalf("the courier call returned %+v", ret)
	}
}

// Killed after the child's run ended: the recovered parent finds the
// child's outcome in its journal instead of running the child again.
func TestAgentToolCrashAfterChildReplaysItsOutcome(t *testing.T) {
	ret := crashCourier(t, "parent_after_child", effect.RecoveryRetrySafe, 0)
	if ret.IsError || returnText(ret.Content) != "sent" || ret.Metadata[tool.MetaReplayed] != true {
		t.Fatalf("the courier call returned %+v", ret)
	}
}
