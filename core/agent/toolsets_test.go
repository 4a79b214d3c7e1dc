package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// lcSet is a toolset with a lifecycle that records what the agent asks of
// it, as "phase:step".
type lcSet struct {
	name     string
	perStep  bool
	enterErr error
	readWait time.Duration
	// tools gives the tools for a step; addTool when nil.
	tools func(step int) []tool.Tool

	mu  sync.Mutex
	log []string
	ids []string // run ids seen by Refresh
}

func (l *lcSet) record(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, s)
}

func (l *lcSet) calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.log)
}

func (l *lcSet) Name() string               { return l.name }
func (l *lcSet) ID() string                 { return l.name + "_id" }
func (l *lcSet) Defaults() toolset.Defaults { return toolset.Defaults{} }
func (l *lcSet) PerStep() bool              { return l.perStep }

func (l *lcSet) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	l.record(fmt.Sprintf("tools:%d", rc.RunStep))
	if l.readWait > 0 {
		select {
		case <-time.After(l.readWait):
		case <-rc.Ctx.Done():
			return nil, rc.Ctx.Err()
		}
	}
	if l.tools != nil {
		return l.tools(rc.RunStep), nil
	}
	return []tool.Tool{addTool()}, nil
}

func (l *lcSet) Instructions(rc *tool.RunContext) []toolset.Instruction {
	return []toolset.Instruction{{Group: l.name, Content: fmt.Sprintf("use %s at step %d", l.name, rc.RunStep)}}
}

func (l *lcSet) Enter(_ context.Context, rc *tool.RunContext) error {
	l.record(fmt.Sprintf("enter:%d", rc.RunStep))
	return l.enterErr
}

func (l *lcSet) Exit(_ context.Context, rc *tool.RunContext) error {
	l.record(fmt.Sprintf("exit:%d", rc.RunStep))
	return nil
}

func (l *lcSet) Refresh(_ context.Context, rc *tool.RunContext) error {
	l.record(fmt.Sprintf("refresh:%d", rc.RunStep))
	l.mu.Lock()
	l.ids = append(l.ids, rc.RunID)
	l.mu.Unlock()
	return nil
}

// eventLog records kinds, with custom events as "custom:kind".
type eventLog struct {
	mu      sync.Mutex
	kinds   []string
	reports []map[string]any
}

func (e *eventLog) handle(ev agent.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := ev.Kind
	if ev.Kind == agent.EventCustom && ev.Custom != nil {
		k = "custom:" + ev.Custom.Kind
		if strings.HasPrefix(ev.Custom.Kind, "toolset_") {
			e.reports = append(e.reports, ev.Custom.Payload)
		}
	}
	e.kinds = append(e.kinds, k)
}

func (e *eventLog) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.kinds)
}

func twoStepModel() *model.TestModel {
	return model.NewTestModel(calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2})), text("done"))
}

func TestToolsetLifecycleTwoStepRun(t *testing.T) {
	ls := &lcSet{name: "calc", perStep: true}
	m := twoStepModel()
	a := agent.NewBuilder(m).Toolset(ls).MustBuild()
	var evs eventLog
	res, err := a.Run(context.Background(), "go", agent.WithEvents(evs.handle))
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	if got, want := ls.calls(), []string{"enter:0", "tools:0", "tools:1", "exit:2"}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	want := []string{"run_start", "custom:toolset_initialized", "model_request", "model_response", "tool_call", "tool_return",
		"model_request", "model_response", "run_complete", "custom:toolset_closed"}
	if got := evs.list(); !slices.Equal(got, want) {
		t.Fatalf("events %v\nwant %v", got, want)
	}
	init, closed := evs.reports[0], evs.reports[1]
	if init["toolset"] != "calc" || init["id"] != "calc_id" || init["status"] != "initialized" || init["tool_count"] != 1 || init["instruction_count"] != 1 {
		t.Fatalf("initialized report %v", init)
	}
	if closed["status"] != "closed" {
		t.Fatalf("closed report %v", closed)
	}
	// Each request carries the step's instructions.
	reqs := m.Requests()
	if !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Instructions, "use calc at step 0") ||
		!strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Instructions, "use calc at step 1") {
		t.Fatalf("instructions %q / %q", reqs[0].Messages[0].Instructions, reqs[1].Messages[len(reqs[1].Messages)-1].Instructions)
	}
}

func TestToolsetLifecycleReadOncePerRunWhenNotPerStep(t *testing.T) {
	ls := &lcSet{name: "calc"}
	a := agent.NewBuilder(twoStepModel()).Toolset(ls).MustBuild()
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, want := ls.calls(), []string{"enter:0", "tools:0", "exit:2"}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
}

func TestToolsetLifecycleThroughCombinators(t *testing.T) {
	ls := &lcSet{name: "calc", perStep: true}
	ts := toolset.Prefixed("m", toolset.Exclude(ls, "nothing"))
	m := model.NewTestModel(calls(model.Call("c1", "m_add", map[string]int{"left": 1, "right": 2})), text("done"))
	if _, err := agent.NewBuilder(m).Toolset(ts).MustBuild().Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, want := ls.calls(), []string{"enter:0", "tools:0", "tools:1", "exit:2"}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
}

func TestToolsetLifecyclePolicySkipsEnterAndExit(t *testing.T) {
	ls := &lcSet{name: "calc", perStep: true}
	ts := toolset.WithLifecycle(ls, toolset.LifecyclePolicy{SkipEnter: true, KeepOpen: true})
	if _, err := agent.NewBuilder(twoStepModel()).Toolset(ts).MustBuild().Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, want := ls.calls(), []string{"tools:0", "tools:1"}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
}

func TestToolsetLifecycleReadTimeout(t *testing.T) {
	// A read that would take 30 s: only the 20 ms timeout can fail the run
	// (the outcome says so, no clock is read).
	ls := &lcSet{name: "slow", readWait: 30 * time.Second}
	ts := toolset.WithLifecycle(ls, toolset.LifecyclePolicy{ReadTimeout: 20 * time.Millisecond})
	var evs eventLog
	res, err := agent.NewBuilder(twoStepModel()).Toolset(ts).MustBuild().Run(context.Background(), "go", agent.WithEvents(evs.handle))
	if err == nil || !errors.Is(err, toolset.ErrTimeout) || !strings.Contains(err.Error(), `toolset "slow": read timed out after 20ms`) {
		t.Fatalf("err %v", err)
	}
	if res.Status != agent.StatusFailed {
		t.Fatalf("status %v", res.Status)
	}
	// Entered, so exited even though the read failed.
	if got, want := ls.calls(), []string{"enter:0", "tools:0", "exit:0"}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	want := []string{"run_start", "custom:toolset_failed", "run_failed", "custom:toolset_closed"}
	if got := evs.list(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if evs.reports[0]["phase"] != "read" || !strings.Contains(evs.reports[0]["error"].(string), "timed out") {
		t.Fatalf("failed report %v", evs.reports[0])
	}
}

func TestToolsetLifecycleUnavailableIsLeftOut(t *testing.T) {
	broken := &lcSet{name: "broken", enterErr: errors.New("no server"), tools: func(int) []tool.Tool { return nil }}
	m := twoStepModel()
	var evs eventLog
	var warnings []agent.Warning
	res, err := agent.NewBuilder(m).Tool(addTool()).Toolset(broken).MustBuild().Run(context.Background(), "go", agent.WithEvents(evs.handle),
		agent.WithWarnings(func(w agent.Warning) { warnings = append(warnings, w) }))
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	// Left out, and said so to whoever runs it, events or not.
	if len(warnings) != 1 || warnings[0].Kind != agent.WarningToolsetUnavailable || warnings[0].Toolset != "broken" ||
		!strings.Contains(warnings[0].Message, `toolset "broken": enter: no server`) {
		t.Fatalf("warnings %+v", warnings)
	}
	if got, want := broken.calls(), []string{"enter:0"}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if evs.list()[1] != "custom:toolset_unavailable" || evs.reports[0]["status"] != "unavailable" ||
		!strings.Contains(evs.reports[0]["error"].(string), `toolset "broken": enter: no server`) {
		t.Fatalf("events %v reports %v", evs.list(), evs.reports)
	}
	if len(evs.reports) != 1 {
		t.Fatalf("an unavailable toolset is not closed: %v", evs.reports)
	}

	strict := toolset.WithLifecycle(&lcSet{name: "broken", enterErr: errors.New("no server")}, toolset.LifecyclePolicy{FailOnUnavailable: true})
	res, err = agent.NewBuilder(twoStepModel()).Toolset(strict).MustBuild().Run(context.Background(), "go")
	if err == nil || !strings.Contains(err.Error(), "no server") || res.Status != agent.StatusFailed {
		t.Fatalf("run: %v %v", res, err)
	}
	// An agent that fails closed on unavailable tools fails closed on an
	// unavailable toolset too.
	plain := &lcSet{name: "broken", enterErr: errors.New("no server"), tools: func(int) []tool.Tool { return nil }}
	res, err = agent.NewBuilder(twoStepModel()).Toolset(plain).UnavailableTools(agent.FailOnUnavailable).MustBuild().Run(context.Background(), "go")
	if err == nil || !strings.Contains(err.Error(), "no server") || res.Status != agent.StatusFailed {
		t.Fatalf("fail-closed agent: %v %v", res, err)
	}
}

// optionalSet says itself whether a run may go on without it.
type optionalSet struct {
	lcSet
	optional bool
}

func (o *optionalSet) Optional() bool { return o.optional }

// A toolset that is a toolset.Optionality decides for itself; a policy
// with FailOnUnavailable fails the run either way.
func TestToolsetOptionalityDecidesOnUnavailable(t *testing.T) {
	for _, c := range []struct {
		optional, failPolicy bool
		agentPolicy          agent.UnavailablePolicy
		fails                bool
	}{
		{false, false, agent.SkipUnavailable, true},
		{true, false, agent.SkipUnavailable, false},
		{true, false, agent.FailOnUnavailable, false},
		{true, true, agent.SkipUnavailable, true},
	} {
		var ts toolset.Toolset = &optionalSet{lcSet: lcSet{name: "srv", enterErr: errors.New("no server"), tools: func(int) []tool.Tool { return nil }}, optional: c.optional}
		if c.failPolicy {
			ts = toolset.WithLifecycle(ts, toolset.LifecyclePolicy{FailOnUnavailable: true})
		}
		var warnings []agent.Warning
		res, err := agent.NewBuilder(twoStepModel()).Tool(addTool()).Toolset(ts).UnavailableTools(c.agentPolicy).MustBuild().
			Run(context.Background(), "go", agent.WithWarnings(func(w agent.Warning) { warnings = append(warnings, w) }))
		if c.fails {
			if !errors.Is(err, agent.ErrConfig) || !strings.Contains(err.Error(), `toolset "srv": enter: no server`) || len(warnings) != 0 {
				t.Errorf("%+v: %v %v", c, err, warnings)
			}
			if !c.optional && !strings.Contains(err.Error(), "mark it optional") {
				t.Errorf("%+v: %v", c, err)
			}
			continue
		}
		if err != nil || res.Output != "done" || len(warnings) != 1 {
			t.Errorf("%+v: %v %v %v", c, res, err, warnings)
		}
	}
}

func TestToolsetLifecycleEnterTimeout(t *testing.T) {
	ls := &blockingEnter{lcSet: lcSet{name: "hang"}}
	ts := toolset.WithLifecycle(ls, toolset.LifecyclePolicy{InitializationTimeout: 20 * time.Millisecond, FailOnUnavailable: true})
	_, err := agent.NewBuilder(twoStepModel()).Toolset(ts).MustBuild().Run(context.Background(), "go")
	if err == nil || !strings.Contains(err.Error(), `toolset "hang": enter timed out after 20ms`) {
		t.Fatalf("err %v", err)
	}
}

// blockingEnter never returns from Enter on its own: only the bound ends
// the wait.
type blockingEnter struct{ lcSet }

func (b *blockingEnter) Enter(context.Context, *tool.RunContext) error {
	select {} //nolint:staticcheck // a toolset that ignores its context
}

func TestToolsetLifecycleExitsOnEveryRunEnd(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		ls := &lcSet{name: "calc"}
		m := model.NewTestModel() // no response: the model fails
		if _, err := agent.NewBuilder(m).Toolset(ls).MustBuild().Run(context.Background(), "go"); err == nil {
			t.Fatal("no error")
		}
		if got := ls.calls(); got[len(got)-1] != "exit:1" {
			t.Fatalf("calls %v", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ls := &lcSet{name: "calc"}
		ctx, cancel := context.WithCancel(context.Background())
		slow := tool.New("wait", "", map[string]any{"type": "object"}, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			cancel()
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		})
		m := model.NewTestModel(calls(model.Call("c1", "wait", map[string]any{})), text("done"))
		res, err := agent.NewBuilder(m).Tool(slow).Toolset(ls).MustBuild().Run(ctx, "go")
		if !errors.Is(err, agent.ErrCancelled) || res.Status != agent.StatusCancelled {
			t.Fatalf("run: %v %v", res, err)
		}
		if got, want := ls.calls(), []string{"enter:0", "tools:0", "exit:1"}; !slices.Equal(got, want) {
			t.Fatalf("calls %v, want %v", got, want)
		}
	})
	t.Run("waiting and resumed", func(t *testing.T) {
		ls := &lcSet{name: "calc", perStep: true}
		d := &deployTool{}
		m := model.NewTestModel(calls(model.Call("c1", "deploy", map[string]string{"env": "prod"})), text("done"))
		s := agent.NewBuilder(m).Tool(d.tool()).Toolset(ls).MustBuild().NewSession()
		res, err := s.Run(context.Background(), "go")
		if err != nil || res.Status != agent.StatusWaiting {
			t.Fatalf("run: %v %v", res, err)
		}
		if got, want := ls.calls(), []string{"enter:0", "tools:0", "exit:1"}; !slices.Equal(got, want) {
			t.Fatalf("calls %v, want %v", got, want)
		}
		var evs eventLog
		res2, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: res.Pending[0].ID, Approved: true}}},
			agent.WithEvents(evs.handle))
		if err != nil || res2.Output != "done" {
			t.Fatalf("resume: %v %v", res2, err)
		}
		// The resumed run enters again, refreshes instead of its first
		// read, reads per step, and exits.
		want := []string{"enter:0", "tools:0", "exit:1", "enter:0", "refresh:0", "tools:0", "tools:1", "exit:2"}
		if got := ls.calls(); !slices.Equal(got, want) {
			t.Fatalf("calls %v, want %v", got, want)
		}
		if len(ls.ids) != 1 || ls.ids[0] != res.RunID {
			t.Fatalf("refresh saw run ids %v, want %s", ls.ids, res.RunID)
		}
		if k := evs.list(); k[0] != "custom:toolset_initialized" || k[len(k)-1] != "custom:toolset_closed" {
			t.Fatalf("events %v", k)
		}
	})
}

func TestDynamicToolsetChangesToolsPerStep(t *testing.T) {
	mk := func(name string) tool.Tool {
		return tool.New(name, "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text(name), nil
		})
	}
	ls := &lcSet{name: "dyn", perStep: true, tools: func(step int) []tool.Tool {
		return []tool.Tool{mk(fmt.Sprintf("step%d", step))}
	}}
	m := model.NewTestModel(calls(model.Call("c1", "step0", map[string]any{})), calls(model.Call("c2", "step0", map[string]any{})), text("done"))
	res, err := agent.NewBuilder(m).Toolset(ls).MaxRetries(1).MustBuild().Run(context.Background(), "go")
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	var names [][]string
	for _, r := range m.Requests() {
		var n []string
		for _, d := range r.Params.Tools {
			n = append(n, d.Name)
		}
		names = append(names, n)
	}
	if fmt.Sprint(names) != "[[step0] [step1] [step2]]" {
		t.Fatalf("tools per request %v", names)
	}
	// step0 is gone at step 1: its second call is not found.
	var found bool
	for _, p := range m.Requests()[2].Messages[len(m.Requests()[2].Messages)-1].Parts {
		if p.Return != nil && p.Return.ToolCallID == "c2" && p.Return.Runtime != nil && p.Return.Runtime.ErrorKind == tool.ErrorKindNotFound {
			found = true
		}
	}
	if !found {
		t.Fatalf("the call of a tool gone at step 1 was not refused: %+v", m.Requests()[2].Messages)
	}
}

func TestDynamicToolsetDuplicateNameFailsTheStep(t *testing.T) {
	ls := &lcSet{name: "dup", perStep: true}
	_, err := agent.NewBuilder(twoStepModel()).Tool(addTool()).Toolset(ls).MustBuild().Run(context.Background(), "go")
	var dup *toolset.DuplicateError
	if !errors.As(err, &dup) || !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err %v", err)
	}
	if got := ls.calls(); got[len(got)-1] != "exit:0" {
		t.Fatalf("calls %v", got)
	}
}
