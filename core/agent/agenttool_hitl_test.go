package agent_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/tool"
)

// payTool counts its runs; the cashier agents below require approval
// for it.
func payTool(ran *atomic.Int32) tool.Tool {
	return tool.New("pay", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("paid"), nil
	})
}

// returnText is what a model reads of a return's content: its text, an
// error's message, or its JSON.
func returnText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case json.RawMessage:
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return string(v)
	case map[string]any:
		if m, ok := v["message"].(string); ok {
			return m
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// cashierModel calls pay, then answers with the pay tool's return.
func cashierModel() model.Model {
	return model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		for _, r := range msgs[len(msgs)-1].Returns() {
			return usedBy(text("cashier: "+returnText(r.Content)), 3, 1), nil
		}
		return usedBy(calls(model.Call("p", "pay", map[string]int{"amount": 5})), 3, 1), nil
	})
}

func cashier(ran *atomic.Int32) *agent.Agent {
	return agent.NewBuilder(cashierModel()).Name("cashier").Tool(payTool(ran)).ApprovalRequiredTools("pay").MustBuild()
}

// relayModel calls tool name with a prompt, then answers with the return
// it got.
func relayModel(id, name string) model.Model {
	return relayModelFor(id, name, map[string]string{"prompt": "pay 5"})
}

// relayModelFor calls tool name with args, then answers with the return
// it got.
func relayModelFor(id, name string, args any) model.Model {
	return model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		for _, r := range msgs[len(msgs)-1].Returns() {
			return usedBy(text("relayed: "+returnText(r.Content)), 2, 1), nil
		}
		return usedBy(calls(model.Call(id, name, args)), 2, 1), nil
	})
}

func approveIDs(ids ...string) agent.Resolution {
	var r agent.Resolution
	for _, id := range ids {
		r.Approvals = append(r.Approvals, agent.ApprovalDecision{ID: id, Approved: true})
	}
	return r
}

// A child that needs an approval makes the whole run wait; the parent's
// pending item names the child's call and the path of agents; approving
// it resumes the child where it stopped, and the parent goes on with the
// child's answer.
func TestAgentToolChildApprovalPausesParent(t *testing.T) {
	var ran atomic.Int32
	parent := agent.NewBuilder(relayModel("c1", "cashier")).Name("front").
		Tool(mustAsTool(t, cashier(&ran), agent.AsToolOptions{})).MustBuild()
	s := parent.NewSession()
	res, err := s.Run(context.Background(), "pay please")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	if len(res.Pending) != 1 {
		t.Fatalf("pending %+v", res.Pending)
	}
	p := res.Pending[0]
	if p.Kind != agent.PendingApproval || p.ToolName != "pay" || p.ToolCallID != "p" || p.ParentToolCallID != "c1" ||
		!slices.Equal(p.Path, []string{"cashier"}) || string(p.Arguments) != `{"amount":5}` {
		t.Fatalf("pending %+v", p)
	}
	if ran.Load() != 0 {
		t.Fatal("pay ran before its approval")
	}
	// Both requests so far: the parent's and the child's.
	if res.Usage.Requests != 2 {
		t.Fatalf("usage at wait %+v", res.Usage)
	}
	res, err = s.Resume(context.Background(), approveIDs(p.ID))
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %+v %v", res, err)
	}
	if res.Output != "relayed: cashier: paid" || ran.Load() != 1 {
		t.Fatalf("output %q, pay ran %d times", res.Output, ran.Load())
	}
	// Four requests in all, none counted twice.
	if res.Usage.Requests != 4 || res.Usage.InputTokens != 10 {
		t.Fatalf("usage %+v", res.Usage)
	}
	// Per agent, across the wait.
	front, cash := res.UsageByAgent["front"], res.UsageByAgent["cashier"]
	if len(res.UsageByAgent) != 2 || front.Requests != 2 || front.InputTokens != 4 || cash.Requests != 2 || cash.InputTokens != 6 {
		t.Fatalf("usage by agent %+v", res.UsageByAgent)
	}
}

// A denied child request reaches the child's model as a denial; the child
// answers and the parent goes on.
func TestAgentToolChildDenial(t *testing.T) {
	var ran atomic.Int32
	parent := agent.NewBuilder(relayModel("c1", "cashier")).
		Tool(mustAsTool(t, cashier(&ran), agent.AsToolOptions{})).MustBuild()
	s := parent.NewSession()
	res, _ := s.Run(context.Background(), "pay")
	deny := agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: res.Pending[0].ToolCallID, Approved: false, Reason: "too much"}}}
	res, err := s.Resume(context.Background(), deny)
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %+v %v", res, err)
	}
	if ran.Load() != 0 || res.Output != "relayed: cashier: too much" {
		t.Fatalf("output %q, pay ran %d times", res.Output, ran.Load())
	}
}

// A deferred call two levels down: the path names both agents, and the
// deferred result reaches the grandchild.
func TestAgentToolGrandchildDeferred(t *testing.T) {
	lookup := tool.New("lookup", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.CallDeferred("a clerk looks it up", nil)
	})
	leafModel := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		for _, r := range msgs[len(msgs)-1].Returns() {
			return text("leaf: " + returnText(r.Content)), nil
		}
		return calls(model.Call("x", "lookup", nil)), nil
	})
	leaf := agent.NewBuilder(leafModel).Name("leaf").Tool(lookup).MustBuild()
	mid := agent.NewBuilder(relayModel("m1", "leaf")).Name("mid").Tool(mustAsTool(t, leaf, agent.AsToolOptions{})).MustBuild()
	top := agent.NewBuilder(relayModel("t1", "mid")).Tool(mustAsTool(t, mid, agent.AsToolOptions{})).MustBuild()
	s := top.NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting || len(res.Pending) != 1 {
		t.Fatalf("run: %+v %v", res, err)
	}
	p := res.Pending[0]
	if p.Kind != agent.PendingDeferred || p.ToolName != "lookup" || p.ParentToolCallID != "t1" || !slices.Equal(p.Path, []string{"mid", "leaf"}) {
		t.Fatalf("pending %+v", p)
	}
	res, err = s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{
		{ID: p.ID, Status: agent.DeferredCompleted, Response: json.RawMessage(`"42"`)},
	}})
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "relayed: relayed: leaf: 42" {
		t.Fatalf("resume: %+v %v", res, err)
	}
	// Each of the three agents made two requests: the grandchild's are
	// its own, not its parent's.
	by := res.UsageByAgent
	if len(by) != 3 || by[""].Requests != 2 || by["mid"].Requests != 2 || by["leaf"].Requests != 2 || res.Usage.Requests != 6 {
		t.Fatalf("usage by agent %+v (all %+v)", by, res.Usage)
	}
}

// Two children waiting in one batch beside a call of the parent's own
// that waits too: every request is listed, one resume answers them all.
// The children's call ids equal the parent's own, so those ids are
// ambiguous: answering by one fails and changes nothing.
func TestAgentToolParallelWaitingChildren(t *testing.T) {
	var ran atomic.Int32
	guard := tool.New("guard", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("", nil)
		}
		return tool.Text("guarded"), nil
	})
	first := mustAsTool(t, cashier(&ran), agent.AsToolOptions{Name: "first"})
	second := mustAsTool(t, cashier(&ran), agent.AsToolOptions{Name: "second"})
	m := model.NewTestModel(
		calls(model.Call("p", "guard", nil), model.Call("a", "first", map[string]string{"prompt": "x"}), model.Call("b", "second", map[string]string{"prompt": "y"})),
		text("all done"))
	parent := agent.NewBuilder(m).Tool(guard, first, second).MustBuild()
	s := parent.NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting || len(res.Pending) != 3 {
		t.Fatalf("run: %+v %v", res, err)
	}
	_, err = s.Resume(context.Background(), approveIDs("p", res.Pending[1].ID, res.Pending[2].ID))
	if !errors.Is(err, agent.ErrState) {
		t.Fatalf("an ambiguous tool call id was accepted: %v", err)
	}
	var ids []string
	for _, p := range res.Pending {
		ids = append(ids, p.ID)
	}
	res, err = s.Resume(context.Background(), approveIDs(ids...))
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "all done" || ran.Load() != 2 {
		t.Fatalf("resume: %+v %v (pay ran %d times)", res, err, ran.Load())
	}
	got := map[string]string{}
	for _, r := range res.Returns() {
		got[r.ToolCallID] = returnText(r.Content)
	}
	if got["p"] != "guarded" || got["a"] != "cashier: paid" || got["b"] != "cashier: paid" {
		t.Fatalf("returns %v", got)
	}
}

// A child that needs two approvals one after the other: the parent waits
// twice.
func TestAgentToolChildWaitsAgain(t *testing.T) {
	var ran atomic.Int32
	twice := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		n := 0
		for _, m := range msgs {
			n += len(m.Returns())
		}
		if n < 2 {
			return calls(model.Call("p"+string(rune('0'+n)), "pay", nil)), nil
		}
		return text("paid twice"), nil
	})
	child := agent.NewBuilder(twice).Name("cashier").Tool(payTool(&ran)).ApprovalRequiredTools("pay").MustBuild()
	parent := agent.NewBuilder(relayModel("c1", "cashier")).Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	s := parent.NewSession()
	res, _ := s.Run(context.Background(), "go")
	for i := 0; i < 2; i++ {
		if res.Status != agent.StatusWaiting || len(res.Pending) != 1 || res.Pending[0].ToolCallID != "p"+string(rune('0'+i)) {
			t.Fatalf("step %d: %+v", i, res)
		}
		var err error
		if res, err = s.Resume(context.Background(), approveIDs(res.Pending[0].ID)); err != nil {
			t.Fatal(err)
		}
	}
	if res.Status != agent.StatusCompleted || res.Output != "relayed: paid twice" || ran.Load() != 2 {
		t.Fatalf("end: %+v, pay ran %d times", res, ran.Load())
	}
}

// The waiting tree survives the process: another agent built the same
// way opens the session from a shared store and resumes the child.
func TestAgentToolChildResumesFromStore(t *testing.T) {
	st := &session.MemoryStore{}
	var ran atomic.Int32
	build := func() *agent.Agent {
		child := agent.NewBuilder(cashierModel()).Name("cashier").Tool(payTool(&ran)).ApprovalRequiredTools("pay").
			StateKey([]byte("child key")).MustBuild()
		return agent.NewBuilder(relayModel("c1", "cashier")).Tool(mustAsTool(t, child, agent.AsToolOptions{})).
			StateKey([]byte("parent key")).SessionStore(st).MustBuild()
	}
	ctx := context.Background()
	s := build().NewSession()
	res, err := s.Run(ctx, "pay")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	other, err := build().OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	pending := other.Pending()
	if len(pending) != 1 || !slices.Equal(pending[0].Path, []string{"cashier"}) {
		t.Fatalf("pending %+v", pending)
	}
	res, err = other.Resume(ctx, approveIDs(pending[0].ID))
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "relayed: cashier: paid" || ran.Load() != 1 {
		t.Fatalf("resume: %+v %v (pay ran %d times)", res, err, ran.Load())
	}
	// The first process's copy cannot resume it again.
	if _, err := s.Resume(ctx, approveIDs(pending[0].ID)); !errors.Is(err, agent.ErrState) {
		t.Fatalf("second resume: %v", err)
	}
}

// Exported state carries the child, and the child verifies its part with
// its own key: a child's state altered under an unsigned parent (whose
// checksum anyone can recompute) is refused when it resumes, nothing of
// it runs, and the parent's model reads the failure.
func TestAgentToolChildStateIsVerified(t *testing.T) {
	var ran atomic.Int32
	child := agent.NewBuilder(cashierModel()).Name("cashier").Tool(payTool(&ran)).ApprovalRequiredTools("pay").
		StateKey([]byte("child key")).MustBuild()
	parent := agent.NewBuilder(relayModel("c1", "cashier")).Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	s := parent.NewSession()
	res, _ := s.Run(context.Background(), "pay")
	id := res.Pending[0].ID
	data, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}

	// Unaltered, it resumes.
	restored, err := parent.SessionFromState(data, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	res, err = restored.Resume(context.Background(), approveIDs(id))
	if err != nil || res.Status != agent.StatusCompleted || ran.Load() != 1 {
		t.Fatalf("resume from exported state: %+v %v", res, err)
	}

	// Altered, with the parent's checksum recomputed.
	var env struct {
		Version int             `json:"version"`
		State   json.RawMessage `json:"state"`
		Digest  string          `json:"digest"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	altered := strings.ReplaceAll(string(env.State), `"amount":5`, `"amount":500`)
	if altered == string(env.State) {
		t.Fatal("the child's state does not hold the call's arguments")
	}
	var v any
	d := json.NewDecoder(strings.NewReader(altered))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	canon, _ := json.Marshal(v)
	sum := sha256.Sum256(canon)
	env.State, env.Digest = json.RawMessage(altered), "sha256:"+hex.EncodeToString(sum[:])
	forged, _ := json.Marshal(env)
	restored, err = parent.SessionFromState(forged, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	res, err = restored.Resume(context.Background(), approveIDs(id))
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume of altered state: %+v %v", res, err)
	}
	if ran.Load() != 1 || !strings.Contains(res.Output, `agent "cashier" could not be resumed`) {
		t.Fatalf("output %q, pay ran %d times", res.Output, ran.Load())
	}
}
