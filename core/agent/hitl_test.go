package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// deployTool asks for approval until it gets one and records what it saw.
type deployTool struct {
	calls    atomic.Int32
	approval atomic.Pointer[tool.Approval]
	args     atomic.Pointer[string]
}

func (d *deployTool) tool() *tool.Function {
	return tool.New("deploy", "Deploy a release", map[string]any{
		"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}},
	}, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		d.calls.Add(1)
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("deploy production", map[string]any{"risk": "high"})
		}
		d.approval.Store(tc.Approval)
		s := string(args)
		d.args.Store(&s)
		return tool.JSON(map[string]any{"approved": true}), nil
	})
}

func waitingSession(t *testing.T, d *deployTool, extra ...model.Message) (*agent.Session, *model.TestModel) {
	t.Helper()
	responses := append([]model.Message{calls(
		model.Call("call_deploy", "deploy", map[string]string{"env": "prod"}),
		model.Call("call_add", "add", map[string]int{"left": 1, "right": 2}),
	)}, extra...)
	m := model.NewTestModel(responses...)
	s := agent.NewBuilder(m).Tool(d.tool(), addTool()).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "deploy")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	return s, m
}

func TestResumeApproved(t *testing.T) {
	d := &deployTool{}
	s, m := waitingSession(t, d, text("deployed"))
	p := s.Pending()[0]
	if !strings.HasPrefix(p.ID, "approval_run_") || !strings.HasSuffix(p.ID, "_call_deploy") || p.ToolName != "deploy" || string(p.Arguments) != `{"env":"prod"}` {
		t.Fatalf("pending %+v", p)
	}
	var kinds []string
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: p.ID, Approved: true, DecidedBy: "ui", Reason: "looks fine",
		OverrideArguments: json.RawMessage(`{"env":"staging"}`), Metadata: map[string]any{"channel": "slack"},
	}}}, agent.WithEvents(func(ev agent.Event) { kinds = append(kinds, ev.Kind) }))
	if err != nil || res.Output != "deployed" || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %v %v", res, err)
	}
	if d.calls.Load() != 2 || *d.args.Load() != `{"env":"staging"}` {
		t.Fatalf("calls %d args %s", d.calls.Load(), *d.args.Load())
	}
	a := d.approval.Load()
	if a.Status != "approved" || a.Metadata["decided_by"] != "ui" || a.Metadata["reason"] != "looks fine" || a.Metadata["channel"] != "slack" {
		t.Fatalf("approval %+v", a)
	}
	// The resumed request carries the paused batch's returns, in model order.
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	rets := last[len(last)-1].Returns()
	if len(rets) != 2 || rets[0].ToolCallID != "call_deploy" || rets[1].ToolCallID != "call_add" {
		t.Fatalf("returns %+v", rets)
	}
	if rets[0].IsError || rets[0].Metadata["approval_state"] != "approved" || rets[0].Metadata["hitl_state"] != "resolved" {
		t.Fatalf("approved return %+v", rets[0])
	}
	if contentMap(t, rets[1].Content)["total"] != float64(3) {
		t.Fatalf("kept return %+v", rets[1])
	}
	if !strings.Contains(strings.Join(kinds, " "), "hitl_resolved") {
		t.Fatalf("events %v", kinds)
	}
	if s.Waiting() {
		t.Fatal("still waiting")
	}
}

func TestResumeDeniedByToolCallID(t *testing.T) {
	d := &deployTool{}
	s, m := waitingSession(t, d, text("ok"))
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: "call_deploy", Approved: false, Reason: "not today", DecidedBy: "ops",
	}}})
	if err != nil || res.Output != "ok" {
		t.Fatalf("%v %v", res, err)
	}
	if d.calls.Load() != 1 {
		t.Fatalf("denied tool ran again: %d calls", d.calls.Load())
	}
	reqs := m.Requests()
	ret := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Returns()[0]
	c := contentMap(t, ret.Content)
	if !ret.IsError || c["kind"] != "approval_denied" || c["message"] != "not today" || ret.Metadata["approval_state"] != "denied" || ret.Metadata["decided_by"] != "ops" {
		t.Fatalf("denied return %+v", ret)
	}
	// Built like every tool error: guidance, flags, the kind in metadata.
	want := (&tool.Error{Kind: tool.ErrorKindApprovalDenied}).HowToFix()
	if c["how_to_fix"] != want || c["retryable"] != false || c["success"] != false || c["tool_call_id"] != "call_deploy" ||
		ret.WireMetadata()["error_kind"] != "approval_denied" {
		t.Fatalf("denied return %+v", ret)
	}
}

func TestResumeRejectsBadResolutionsAndStaysWaiting(t *testing.T) {
	d := &deployTool{}
	s, _ := waitingSession(t, d, text("finally"))
	id := s.Pending()[0].ID
	bad := map[string]agent.Resolution{
		"unknown id":   {Approvals: []agent.ApprovalDecision{{ID: "nope", Approved: true}}},
		"missing":      {},
		"duplicate":    {Approvals: []agent.ApprovalDecision{{ID: id, Approved: true}, {ID: "call_deploy", Approved: false}}},
		"wrong kind":   {Deferred: []agent.DeferredResult{{ID: id, Status: "completed"}}},
		"bad override": {Approvals: []agent.ApprovalDecision{{ID: id, Approved: true, OverrideArguments: json.RawMessage(`{`)}}},
		"bad status":   {Approvals: []agent.ApprovalDecision{{ID: id, Approved: true}}, Deferred: []agent.DeferredResult{{ID: "x", Status: "done"}}},
	}
	// Malformed answers have their own kinds (hosts checking them first
	// report the same); all of them are state errors.
	kinds := map[string]error{"bad override": agent.ErrInvalidDecision, "bad status": agent.ErrInvalidResult}
	for name, r := range bad {
		_, err := s.Resume(context.Background(), r)
		if !errors.Is(err, agent.ErrState) {
			t.Fatalf("%s: err = %v", name, err)
		}
		if want := kinds[name]; want != nil && !errors.Is(err, want) {
			t.Fatalf("%s: err = %v, want %v", name, err, want)
		}
		if !s.Waiting() || d.calls.Load() != 1 {
			t.Fatalf("%s changed the session", name)
		}
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: id, Approved: true}}})
	if err != nil || res.Output != "finally" {
		t.Fatalf("%v %v", res, err)
	}
	if _, err := s.Resume(context.Background(), agent.Resolution{}); !errors.Is(err, agent.ErrState) {
		t.Fatalf("resume of a finished run: %v", err)
	}
}

func TestDeferredCallsResume(t *testing.T) {
	worker := tool.New("render", "Render remotely", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.CallDeferred("queued on the render farm", map[string]any{"queue": "gpu"})
	})
	for _, tc := range []struct {
		status, wantKind string
		isError          bool
	}{
		{agent.DeferredCompleted, "", false},
		{agent.DeferredFailed, "deferred_failed", true},
		{agent.DeferredCancelled, "deferred_cancelled", true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			m := model.NewTestModel(calls(model.Call("r1", "render", nil)), text("ok"))
			s := agent.NewBuilder(m).Tool(worker).MustBuild().NewSession()
			var kinds []string
			res, err := s.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) { kinds = append(kinds, ev.Kind) }))
			if err != nil || res.Status != agent.StatusWaiting || res.Pending[0].Kind != agent.PendingDeferred || res.Pending[0].Metadata["queue"] != "gpu" {
				t.Fatalf("%+v %v", res, err)
			}
			if !strings.Contains(strings.Join(kinds, " "), "deferred_requested run_waiting") {
				t.Fatalf("events %v", kinds)
			}
			res, err = s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{{
				ID: res.Pending[0].ID, Status: tc.status, Response: json.RawMessage(`{"url":"https://x/y.png"}`),
			}}})
			if err != nil || res.Output != "ok" {
				t.Fatalf("%v %v", res, err)
			}
			ret := res.Returns()[0]
			if ret.IsError != tc.isError || ret.Metadata["deferred_status"] != tc.status {
				t.Fatalf("return %+v", ret)
			}
			c := contentMap(t, ret.Content)
			if tc.wantKind == "" && c["url"] != "https://x/y.png" || tc.wantKind != "" && c["kind"] != tc.wantKind {
				t.Fatalf("content %+v", c)
			}
			if tc.wantKind != "" {
				// Built like every tool error: guidance, flags, the kind in metadata.
				e := &tool.Error{Kind: tool.ErrorKind(tc.wantKind)}
				if c["how_to_fix"] != e.HowToFix() || c["retryable"] != false || c["success"] != false ||
					ret.WireMetadata()["error_kind"] != tc.wantKind || c["status"] != tc.status {
					t.Fatalf("content %+v metadata %+v", c, ret.Metadata)
				}
			}
		})
	}
}

func TestUserInputPreprocessor(t *testing.T) {
	var got atomic.Pointer[string]
	var approvalMD atomic.Pointer[map[string]any]
	write := tool.New("write_file", "Write a reviewed file", map[string]any{"type": "object"},
		func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			if tc.Approval == nil {
				return tool.Result{}, tool.ApprovalRequired("review", nil)
			}
			s := string(args)
			got.Store(&s)
			md := tc.Approval.Metadata
			approvalMD.Store(&md)
			return tool.JSON(args), nil
		}).WithUserInputPreprocessor(func(_ context.Context, _ *tool.Context, input json.RawMessage) (tool.PreprocessResult, error) {
		return tool.PreprocessResult{OverrideArguments: input, Metadata: map[string]any{"edited": true}}, nil
	})
	m := model.NewTestModel(calls(model.Call("w", "write_file", map[string]string{"path": "a.txt"})), text("ok"))
	s := agent.NewBuilder(m).Tool(write).MustBuild().NewSession()
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: "w", Approved: true, UserInput: json.RawMessage(`{"path":"b.txt"}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Load() != `{"path":"b.txt"}` || (*approvalMD.Load())["edited"] != true {
		t.Fatalf("args %s md %v", *got.Load(), *approvalMD.Load())
	}
}

func TestToolsetPoliciesPauseRuns(t *testing.T) {
	var ran atomic.Int32
	echo := tool.New("echo", "", nil, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.JSON(args), nil
	})
	gated := toolset.ApprovalRequired(toolset.New("ops", echo), "*")
	m := model.NewTestModel(calls(model.Call("e", "echo", map[string]int{"x": 1})), text("done"))
	s := agent.NewBuilder(m).Toolset(gated).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting || ran.Load() != 0 {
		t.Fatalf("%+v %v ran=%d", res, err, ran.Load())
	}
	if res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "e", Approved: true}}}); err != nil || res.Output != "done" || ran.Load() != 1 {
		t.Fatalf("%+v %v ran=%d", res, err, ran.Load())
	}

	client := toolset.New("client", toolset.ClientTool("pick_file", "The user picks a file", nil))
	m = model.NewTestModel(calls(model.Call("p", "pick_file", nil)), text("thanks"))
	s = agent.NewBuilder(m).Toolset(client).MustBuild().NewSession()
	res, err = s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting || res.Pending[0].Kind != agent.PendingDeferred {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{{ID: "p", Status: "completed", Response: json.RawMessage(`"notes.md"`)}}})
	if err != nil || res.Output != "thanks" || string(res.Returns()[0].Content.(json.RawMessage)) != `"notes.md"` {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestExportRestoreWaitingSession(t *testing.T) {
	d := &deployTool{}
	s, _ := waitingSession(t, d)
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	// A new agent (as in a new process) with the same tools resumes it.
	d2 := &deployTool{}
	m2 := model.NewTestModel(text("resumed"))
	a2 := agent.NewBuilder(m2).Tool(d2.tool(), addTool()).MustBuild()
	restored, err := a2.SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	if restored.ID() != s.ID() || !restored.Waiting() || len(restored.Messages()) != len(s.Messages()) {
		t.Fatalf("restored %v waiting=%v", restored.ID(), restored.Waiting())
	}
	res, err := restored.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "call_deploy", Approved: true}}})
	if err != nil || res.Output != "resumed" || d2.calls.Load() != 1 {
		t.Fatalf("%+v %v", res, err)
	}

	// Tampering, versions, missing tools and foreign keys are refused.
	tampered := strings.Replace(string(state), `"prod"`, `"evil"`, 1)
	if tampered == string(state) {
		t.Fatal("test did not tamper")
	}
	noDeploy := agent.NewBuilder(model.TextModel("x")).Tool(addTool()).MustBuild()
	keyed := agent.NewBuilder(model.TextModel("x")).Tool(d.tool(), addTool()).StateKey([]byte("secret")).MustBuild()
	for name, tc := range map[string]struct {
		a    *agent.Agent
		data string
	}{
		"tampered":     {a2, tampered},
		"version":      {a2, strings.Replace(string(state), `"version":1`, `"version":9`, 1)},
		"unknown tool": {noDeploy, string(state)},
		"foreign key":  {keyed, string(state)},
		"garbage":      {a2, "{"},
	} {
		// Allowing unsigned state shows the other checks still hold; a
		// keyed agent refuses unsigned state unless allowed.
		opts := []agent.RestoreOption{agent.AllowUnsigned()}
		if name == "foreign key" {
			opts = nil
		}
		if _, err := tc.a.SessionFromState([]byte(tc.data), opts...); !errors.Is(err, agent.ErrState) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	signed, err := keyed.NewSession().ExportState()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keyed.SessionFromState(signed); err != nil {
		t.Fatalf("keyed round trip: %v", err)
	}
}

func TestApprovalRequiredToolsPolicy(t *testing.T) {
	var ran atomic.Int32
	lookup := tool.New("lookup", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("found"), nil
	})
	m := model.NewTestModel(calls(model.Call("l", "lookup", nil), model.Call("a", "add", map[string]int{"left": 1, "right": 1})), text("ok"))
	s := agent.NewBuilder(m).Tool(lookup, addTool()).ApprovalRequiredTools("lookup").MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting || len(res.Pending) != 1 || res.Pending[0].ToolName != "lookup" || ran.Load() != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if len(res.Batch) != 2 || res.Batch[0].ErrorKind() != tool.ErrorKindApprovalRequired || res.Batch[1].ErrorKind() != "" {
		t.Fatalf("ungated tool did not run: %+v", res.Batch)
	}
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	// Re-encoding the state (as a host language might) keeps it valid.
	var generic any
	if err := json.Unmarshal(state, &generic); err != nil {
		t.Fatal(err)
	}
	reencoded, err := json.MarshalIndent(generic, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The restoring agent's policy applies: here it has none, so approval
	// still re-runs the tool once.
	a2 := agent.NewBuilder(model.TextModel("after")).Tool(lookup, addTool()).MustBuild()
	restored, err := a2.SessionFromState(reencoded, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	res, err = restored.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "l", Approved: true}}})
	if err != nil || res.Output != "after" || ran.Load() != 1 {
		t.Fatalf("%+v %v ran=%d", res, err, ran.Load())
	}
}

func TestRejectedOverrideIsUserError(t *testing.T) {
	d := &deployTool{}
	s, _ := waitingSession(t, d, text("ok"))
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: "call_deploy", Approved: true, OverrideArguments: json.RawMessage(`{"env": 7}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	ret := res.Returns()[0]
	if ret.ErrorKind() != tool.ErrorKindUserError || ret.Metadata["retry"] != nil || ret.Metadata["approval_state"] != "approved" {
		t.Fatalf("return %+v", ret)
	}
	if !strings.Contains(ret.Metadata["message"].(string), "/env") || d.calls.Load() != 1 {
		t.Fatalf("message %v calls %d", ret.Metadata["message"], d.calls.Load())
	}
}

// gatedStarter is a Starter that asks for approval until it has one; its
// blocking Call must not be used.
type gatedStarter struct {
	name   string
	starts atomic.Int32
	answer func(done func(tool.Result, error))
}

func (g *gatedStarter) Definition() tool.Definition {
	return tool.Definition{Name: g.name, Parameters: map[string]any{"type": "object"}}
}

func (g *gatedStarter) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, tool.UserError("the blocking path was used")
}

func (g *gatedStarter) Start(_ context.Context, tc *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
	if tc.Approval == nil {
		done(tool.Result{}, tool.ApprovalRequired("check", nil))
		return
	}
	g.starts.Add(1)
	g.answer(done)
}

// Approved calls run as one batch under the batch rules: in parallel,
// Starters are started together from one goroutine. Each call here is
// answered only once both have started, so running them one at a time
// (or each through a blocking call) would not complete.
func TestResumedStartersRunAsOneParallelBatch(t *testing.T) {
	var both sync.WaitGroup
	both.Add(2)
	answer := func(done func(tool.Result, error)) {
		both.Done()
		go func() {
			both.Wait()
			done(tool.Text("ok"), nil)
		}()
	}
	h1, h2 := &gatedStarter{name: "h1", answer: answer}, &gatedStarter{name: "h2", answer: answer}
	m := model.NewTestModel(calls(model.Call("c1", "h1", map[string]any{}), model.Call("c2", "h2", map[string]any{})), text("done"))
	s := agent.NewBuilder(m).Tool(h1, h2).MustBuild().NewSession()
	if res, err := s.Run(context.Background(), "go"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{
		{ID: "c1", Approved: true}, {ID: "c2", Approved: true},
	}})
	if err != nil || res.Output != "done" {
		t.Fatalf("resume: %v %v", res, err)
	}
	for i, ret := range res.Returns() {
		if ret.IsError || ret.Metadata["approval_state"] != "approved" {
			t.Fatalf("return %d: %+v", i, ret)
		}
	}
	if h1.starts.Load() != 1 || h2.starts.Load() != 1 {
		t.Fatalf("starts %d %d", h1.starts.Load(), h2.starts.Load())
	}
}

// A resumed batch with a sequential tool runs in model order, each call
// after the previous one finished, as any batch with that tool does.
func TestResumedBatchWithSequentialToolRunsInModelOrder(t *testing.T) {
	var mu sync.Mutex
	var order []string
	var running, overlapped atomic.Int32
	gated := func(name string) *tool.Function {
		return tool.New(name, "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			if tc.Approval == nil {
				return tool.Result{}, tool.ApprovalRequired("check", nil)
			}
			if running.Add(1) > 1 {
				overlapped.Add(1)
			}
			defer running.Add(-1)
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond) // leaves room for an overlap to show
			return tool.Text("ok"), nil
		})
	}
	m := model.NewTestModel(calls(model.Call("c1", "first", map[string]any{}), model.Call("c2", "second", map[string]any{})), text("done"))
	s := agent.NewBuilder(m).Tool(gated("first").WithSequential(true), gated("second")).MustBuild().NewSession()
	if res, err := s.Run(context.Background(), "go"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{
		{ID: "c2", Approved: true}, {ID: "c1", Approved: true},
	}})
	if err != nil || res.Output != "done" {
		t.Fatalf("resume: %v %v", res, err)
	}
	if strings.Join(order, ",") != "first,second" || overlapped.Load() != 0 {
		t.Fatalf("order %v, overlapped %d", order, overlapped.Load())
	}
}

// A resumed call sees the run's correction count for its tool as its
// retry number, as the same call did before the pause and as every call
// of a batch does.
func TestResumedCallSeesTheRunsRetryCount(t *testing.T) {
	var seen []int
	var mu sync.Mutex
	flaky := tool.New("flaky", "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		seen = append(seen, tc.Retry)
		n := len(seen)
		mu.Unlock()
		switch {
		case n == 1:
			return tool.Result{}, tool.ModelRetry("try again")
		case tc.Approval == nil:
			return tool.Result{}, tool.ApprovalRequired("check", nil)
		}
		return tool.Text("ok"), nil
	})
	m := model.NewTestModel(calls(model.Call("c1", "flaky", map[string]any{})), calls(model.Call("c2", "flaky", map[string]any{})), text("done"))
	s := agent.NewBuilder(m).Tool(flaky).MustBuild().NewSession()
	if res, err := s.Run(context.Background(), "go"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	if _, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c2", Approved: true}}}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[0 1 1]" {
		t.Fatalf("retries seen %v, want [0 1 1]", seen)
	}
}
