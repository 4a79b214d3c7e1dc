package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// leakyError is a failure whose message holds a DSN with a password, a
// bearer token and a Python traceback: none may reach a model.
const leakyError = "cannot query postgres://app:hunter2@db:5432/prod (Authorization: Bearer tok-8f1e2d3c4b5a)\n" +
	"Traceback (most recent call last):\n  File \"/srv/app/tools.py\", line 9, in lookup\n    conn.execute(q)\n" +
	"OperationalError: server closed the connection"

// failingTool fails every call with err and counts its calls.
func failingTool(name string, n *atomic.Int32, err error) *tool.Function {
	return tool.New(name, "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		n.Add(1)
		return tool.Result{}, err
	})
}

// Under FailFast, a failed call ends the run with a ToolFailedError that
// carries the full message, after its batch ran; the batch's returns stay
// in the session, and the model is not asked again.
func TestFailFastEndsTheRunWithTheFullError(t *testing.T) {
	var looked atomic.Int32
	m := model.NewTestModel(calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2}), model.Call("c2", "lookup", nil)),
		text("never"), text("next run"))
	a := agent.NewBuilder(m).Tool(addTool(), failingTool("lookup", &looked, tool.UserError("%s", leakyError))).
		ToolErrorPolicy(agent.FailFast).MustBuild()
	s := a.NewSession()
	var failedEvent string
	res, err := s.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventRunFailed {
			failedEvent = ev.Error
		}
	}))
	var tf *agent.ToolFailedError
	if !errors.As(err, &tf) || !errors.Is(err, agent.ErrToolFailed) {
		t.Fatalf("err = %v, want a ToolFailedError", err)
	}
	if tf.Tool != "lookup" || tf.ToolCallID != "c2" || tf.Kind != tool.ErrorKindUserError || tf.Message != leakyError {
		t.Fatalf("ToolFailedError = %+v", tf)
	}
	if res == nil || res.Status != agent.StatusFailed || !strings.Contains(res.Error, "hunter2") || !strings.Contains(failedEvent, "hunter2") {
		t.Fatalf("result %+v, event error %q: the application should get the full error", res, failedEvent)
	}
	if looked.Load() != 1 || len(m.Requests()) != 1 {
		t.Fatalf("lookup ran %d times, the model got %d requests; want 1 and 1", looked.Load(), len(m.Requests()))
	}
	rets := res.Returns()
	if len(rets) != 2 || rets[0].ErrorKind() != "" || rets[1].ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("returns = %+v", rets)
	}
	if tool.ErrorMessage(rets[1]) != leakyError {
		t.Errorf("the return's private message = %q", tool.ErrorMessage(rets[1]))
	}
	// The session keeps the batch, and its next run goes on from it; the
	// model then reads the failed return, redacted.
	res, err = s.Run(context.Background(), "again", agent.WithToolErrorPolicy(agent.ReturnToModel))
	if err != nil || res.Output != "never" {
		t.Fatalf("next run: %v %v", res, err)
	}
	sent, _ := json.Marshal(m.Requests()[1].Messages)
	for _, leak := range []string{"hunter2", "tok-8f1e2d3c4b5a", "/srv/app/tools.py", "conn.execute"} {
		if strings.Contains(string(sent), leak) {
			t.Errorf("the model read %q: %s", leak, sent)
		}
	}
	if !strings.Contains(string(sent), "OperationalError: server closed the connection") {
		t.Errorf("the model lost the exception line: %s", sent)
	}
}

// ReturnToModel (the default) gives the same failure to the model,
// redacted, and the run carries on.
func TestReturnToModelRedactsTheFailure(t *testing.T) {
	var looked atomic.Int32
	m := model.NewTestModel(calls(model.Call("c1", "lookup", nil)), text("done"))
	a := agent.NewBuilder(m).Tool(failingTool("lookup", &looked, errors.New(leakyError))).MaxRetries(0).MustBuild()
	res := mustRun(t, a, "go")
	if res.Output != "done" {
		t.Fatalf("output = %q", res.Output)
	}
	sent, _ := json.Marshal(m.Requests()[1].Messages)
	for _, leak := range []string{"hunter2", "tok-8f1e2d3c4b5a", "/srv/app/tools.py"} {
		if strings.Contains(string(sent), leak) {
			t.Errorf("the model read %q: %s", leak, sent)
		}
	}
	if got := tool.ErrorMessage(res.Returns()[0]); got != leakyError {
		t.Errorf("the result lost the full message: %q", got)
	}
}

// Only failures of the tool end a run under FailFast: corrections,
// guidance, paused calls and outputs the model reads as errors do not.
func TestFailFastIgnoresWhatIsNoFailure(t *testing.T) {
	cases := map[string]struct {
		result tool.Result
		err    error
		args   map[string]any
		status agent.Status
	}{
		"feedback":          {err: tool.Feedback("no such file"), status: agent.StatusCompleted},
		"model_retry":       {err: tool.ModelRetry("use a smaller limit"), status: agent.StatusCompleted},
		"invalid_arguments": {args: map[string]any{"n": "not a number"}, status: agent.StatusCompleted},
		"model_error":       {result: tool.ModelError(tool.TextPart("rejected by policy")), status: agent.StatusCompleted},
		"approval_required": {err: tool.ApprovalRequired("risky", nil), status: agent.StatusWaiting},
		"call_deferred":     {err: tool.CallDeferred("queued", nil), status: agent.StatusWaiting},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := tool.New("t", "", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
				func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) { return c.result, c.err })
			m := model.NewTestModel(calls(model.Call("c1", "t", c.args)), text("done"))
			a := agent.NewBuilder(m).Tool(f).ToolErrorPolicy(agent.FailFast).MustBuild()
			res, err := a.Run(context.Background(), "go")
			if err != nil || res.Status != c.status {
				t.Fatalf("status %v, err %v; want %v", res.Status, err, c.status)
			}
		})
	}
}

// Every kind of tool failure ends a run under FailFast, with its kind.
func TestFailFastKinds(t *testing.T) {
	cases := map[tool.ErrorKind]*tool.Function{
		tool.ErrorKindExecution: tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Result{}, errors.New("boom")
		}),
		tool.ErrorKindTimeout: tool.New("t", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}).WithTimeout(time.Millisecond),
		tool.ErrorKindInvalidOutput: tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Result{Parts: []tool.Part{}}, nil
		}),
	}
	for kind, f := range cases {
		t.Run(string(kind), func(t *testing.T) {
			m := model.NewTestModel(calls(model.Call("c1", "t", nil)), text("never"))
			a := agent.NewBuilder(m).Tool(f).MaxRetries(0).MustBuild()
			_, err := a.Run(context.Background(), "go", agent.WithToolErrorPolicy(agent.FailFast))
			var tf *agent.ToolFailedError
			if !errors.As(err, &tf) || tf.Kind != kind || tf.Tool != "t" {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestFailsFastCoversEveryKind(t *testing.T) {
	fails := map[tool.ErrorKind]bool{tool.ErrorKindExecution: true, tool.ErrorKindTimeout: true, tool.ErrorKindUserError: true,
		tool.ErrorKindInvalidOutput: true, tool.ErrorKindDeferredFailed: true}
	for _, k := range tool.ErrorKinds() {
		if agent.FailsFast(k) != fails[k] {
			t.Errorf("FailsFast(%s) = %v", k, agent.FailsFast(k))
		}
	}
}

// A deferred call whose work failed is a failure too: the resumed run
// ends under FailFast.
func TestFailFastOnAResumedDeferredFailure(t *testing.T) {
	f := tool.New("render", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.CallDeferred("queued", nil)
	})
	m := model.NewTestModel(calls(model.Call("c1", "render", nil)), text("never"))
	s := agent.NewBuilder(m).Tool(f).ToolErrorPolicy(agent.FailFast).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("%v %v", res, err)
	}
	_, err = s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{{ID: "c1", Status: agent.DeferredFailed}}})
	var tf *agent.ToolFailedError
	if !errors.As(err, &tf) || tf.Kind != tool.ErrorKindDeferredFailed || tf.ToolCallID != "c1" {
		t.Fatalf("err = %v", err)
	}
}

// A run's policy overrides the agent's, both ways.
func TestRunToolErrorPolicyOverridesTheAgents(t *testing.T) {
	var n atomic.Int32
	build := func(p agent.ToolErrorPolicy) (*agent.Agent, *model.TestModel) {
		m := model.NewTestModel(calls(model.Call("c1", "t", nil)), text("done"))
		return agent.NewBuilder(m).Tool(failingTool("t", &n, tool.UserError("bad"))).ToolErrorPolicy(p).MustBuild(), m
	}
	a, _ := build(agent.FailFast)
	if res, err := a.Run(context.Background(), "go", agent.WithToolErrorPolicy(agent.ReturnToModel)); err != nil || res.Output != "done" {
		t.Fatalf("ReturnToModel over FailFast: %v %v", res, err)
	}
	a, _ = build(agent.ReturnToModel)
	if _, err := a.Run(context.Background(), "go", agent.WithToolErrorPolicy(agent.FailFast)); !errors.Is(err, agent.ErrToolFailed) {
		t.Fatalf("FailFast over ReturnToModel: %v", err)
	}
}

func TestToolErrorPolicyValues(t *testing.T) {
	if _, err := agent.NewBuilder(model.TextModel("x")).ToolErrorPolicy(7).Build(); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("Build with policy 7: %v", err)
	}
	a := agent.NewBuilder(model.TextModel("x")).MustBuild()
	if _, err := a.Run(context.Background(), "go", agent.WithToolErrorPolicy(-1)); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("run with policy -1: %v", err)
	}
	for _, p := range []agent.ToolErrorPolicy{agent.ReturnToModel, agent.FailFast} {
		b, err := json.Marshal(p)
		var back agent.ToolErrorPolicy
		if err != nil || json.Unmarshal(b, &back) != nil || back != p {
			t.Errorf("%v: %s %v", p, b, err)
		}
	}
	var p agent.ToolErrorPolicy
	if err := json.Unmarshal([]byte(`"fail_slow"`), &p); !errors.Is(err, agent.ErrConfig) {
		t.Errorf("unmarshal fail_slow: %v", err)
	}
	if b, _ := json.Marshal(agent.FailFast); string(b) != `"fail_fast"` {
		t.Errorf("FailFast marshals as %s", b)
	}
}

// An output validator's failure fails the run with its full text: the
// run's error is the application's, which redaction does not touch.
func TestOutputValidatorFailureKeepsTheFullText(t *testing.T) {
	spec := cityOutput
	spec.Validators = []agent.OutputValidator{func(context.Context, *tool.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("postgres://app:hunter2@db is down")
	}}
	m := model.NewTestModel(outputCall("o1", map[string]any{"city": "Lyon", "population": 1}))
	_, err := agent.NewBuilder(m).Output(spec).MustBuild().Run(context.Background(), "go")
	if !errors.Is(err, agent.ErrOutput) || !strings.Contains(err.Error(), "postgres://app:hunter2@db is down") {
		t.Fatalf("err %v", err)
	}
}
