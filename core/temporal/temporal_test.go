package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/temporal"
	"github.com/starweaver-go/starweaver/core/tool"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// approvalWorkflow is a user's workflow: it runs the agent, and while the
// run waits it takes a Resolution from the "decision" signal and resumes.
func approvalWorkflow(ta *temporal.Agent) func(workflow.Context, string) (*temporal.Result, error) {
	return func(ctx workflow.Context, prompt string) (*temporal.Result, error) {
		decisions := workflow.GetSignalChannel(ctx, "decision")
		res, err := ta.Run(ctx, prompt)
		for err == nil && res.Status == agent.StatusWaiting {
			var r agent.Resolution
			decisions.Receive(ctx, &r)
			res, err = ta.Resume(ctx, res, r)
		}
		return res, err
	}
}

const wantApproved = `add=3; lookup="found"; deploy="deployed by ops"`

func TestRunWithParallelCallsAndAnApproval(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("approval")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, func(r worker.Registry) {
		r.RegisterWorkflowWithOptions(approvalWorkflow(ta), workflow.RegisterOptions{Name: "approval"})
	})
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), "approval", "add lookup deploy")
	if err != nil {
		t.Fatal(err)
	}
	// The pending approval is named by its tool call id, known from the
	// script; the signal waits in its channel until the run waits.
	decision := agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c3", Approved: true, DecidedBy: "ops"}}}
	if err := c.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), "decision", decision); err != nil {
		t.Fatal(err)
	}
	var res temporal.Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != agent.StatusCompleted || res.Output != wantApproved {
		t.Fatalf("result: status %s, output %q, error %q", res.Status, res.Output, res.Error)
	}

	// The three calls were scheduled together, before any of them ended,
	// each as a "support.tool" activity whose summary names it; model
	// requests are "support.model" activities.
	h := history(t, c, run)
	var scheduled []string
	firstDone := -1
	tools := map[int64]bool{}
	for i, e := range h.Events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			var summary string
			if p := e.GetUserMetadata().GetSummary(); p != nil {
				_ = converter.GetDefaultDataConverter().FromPayload(p, &summary)
			}
			scheduled = append(scheduled, fmt.Sprintf("%s | %s | %d attempts", a.GetActivityType().GetName(), summary,
				a.GetRetryPolicy().GetMaximumAttempts()))
			if a.GetActivityType().GetName() == ta.ToolActivityName() {
				tools[e.GetEventId()] = true
			}
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && tools[a.GetScheduledEventId()] && firstDone < 0 {
			firstDone = i
			if len(tools) != 3 {
				t.Fatalf("a tool activity ended before all three were scheduled: %q", scheduled)
			}
		}
	}
	// The pure and read-only calls may retry, the write may not.
	want := []string{
		"support.model | model request, step 0 | 3 attempts",
		"support.tool | tool add, call c1 | 3 attempts",
		"support.tool | tool lookup, call c2 | 3 attempts",
		"support.tool | tool deploy, call c3 | 1 attempts",
		// After the approval, only the approved call runs again.
		"support.tool | tool deploy, call c3 | 1 attempts",
		"support.model | model request, step 1 | 3 attempts",
	}
	if strings.Join(scheduled, "\n") != strings.Join(want, "\n") {
		t.Fatalf("scheduled activities:\n%s\nwant:\n%s", strings.Join(scheduled, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadyMadeWorkflowWaitsForItsUpdates(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("readymade")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "add lookup deploy"})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(t, c, run)
	if len(pending) != 1 || pending[0].Kind != agent.PendingApproval || pending[0].ToolName != "deploy" {
		t.Fatalf("pending: %+v", pending)
	}
	update := func(name string, arg any) ([]agent.Pending, error) { return sendUpdate(ctx, c, run, name, arg) }
	// What is not pending is rejected, and changes nothing.
	if _, err := update(temporal.UpdateApprove, agent.ApprovalDecision{ID: "nope"}); err == nil || !strings.Contains(err.Error(), "no pending item") {
		t.Fatalf("approving an unknown id: %v", err)
	}
	if _, err := update(temporal.UpdateComplete, agent.DeferredResult{ID: pending[0].ID, Status: agent.DeferredCompleted}); err == nil {
		t.Fatal("completing an approval as a deferred call was accepted")
	}
	open, err := update(temporal.UpdateApprove, agent.ApprovalDecision{ID: pending[0].ID, DecidedBy: "ops"})
	if err != nil || len(open) != 0 {
		t.Fatalf("approve: %v, still open %+v", err, open)
	}
	var res temporal.Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != agent.StatusCompleted || res.Output != wantApproved {
		t.Fatalf("result: status %s, output %q, error %q", res.Status, res.Output, res.Error)
	}
}

func TestReadyMadeWorkflowDenies(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("deny")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "deploy"})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(t, c, run)
	if _, err := sendUpdate(ctx, c, run, temporal.UpdateDeny, agent.ApprovalDecision{ID: pending[0].ToolCallID, Reason: "not today"}); err != nil {
		t.Fatal(err)
	}
	var res temporal.Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "deploy=error(approval_denied") {
		t.Fatalf("output %q", res.Output)
	}
}

// waitPending polls the "pending" query until the run waits.
func waitPending(t *testing.T, c client.Client, run client.WorkflowRun) []agent.Pending {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx := bounded(t, 10*time.Second)
		v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporal.QueryPending)
		var pending []agent.Pending
		if err == nil {
			err = v.Get(&pending)
		}
		if err == nil && len(pending) > 0 {
			return pending
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run never waited: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunsEndAsLocally(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("failed")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	for _, in := range []temporal.WorkflowInput{
		// A limit of the loop, and a model's error: a failed run fails
		// the ready-made workflow, its error reading as in a local run
		// (same tools, same model).
		{Prompt: "add", UsageLimits: &agent.UsageLimits{RequestLimit: 1}},
		{Prompt: "explode"},
		// A tool's feedback reaches the model as it does locally.
		{Prompt: "double:x"},
	} {
		local, _ := agent.NewBuilder(scriptModel()).Tool(addTool(), lookupTool(), deployTool(), doubleTool()).MustBuild().Run(
			ctx, in.Prompt, agent.WithUsageLimits(*orZero(in.UsageLimits)))
		run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), in)
		if err != nil {
			t.Fatal(err)
		}
		var res temporal.Result
		err = run.Get(ctx, &res)
		if local.Status == agent.StatusCompleted {
			if err != nil || res.Output != local.Output {
				t.Fatalf("%q: %v, output %q, want %q", in.Prompt, err, res.Output, local.Output)
			}
			continue
		}
		var app *sdktemporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != temporal.ErrorTypeRunFailed {
			t.Fatalf("%q: err = %v", in.Prompt, err)
		}
		if err := app.Details(&res); err != nil || res.Status != agent.StatusFailed || res.Error != local.Error || app.Message() != local.Error {
			t.Fatalf("details: %v %+v, want error %q", err, res, local.Error)
		}
	}
}

func orZero(l *agent.UsageLimits) *agent.UsageLimits {
	if l == nil {
		return &agent.UsageLimits{}
	}
	return l
}

func TestManyConcurrentWorkflowsOverTwoWorkers(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("many")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, nil)
	startWorker(t, c, queue, ta, nil)
	const n = 200
	ctx := bounded(t, 90*time.Second)
	began := time.Now()
	// Started and awaited from many goroutines at once, as many clients
	// would.
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: fmt.Sprintf("double:%d", i)})
			var res temporal.Result
			if err == nil {
				err = run.Get(ctx, &res)
			}
			if want := fmt.Sprintf(`double="%d"`, 2*i); err == nil && res.Output != want {
				err = fmt.Errorf("output %q, want %q", res.Output, want)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	t.Logf("%d workflows in %v", n, time.Since(began))
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestReplayFromHistory(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("replay")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "add lookup deploy"})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(t, c, run)
	_, err = sendUpdate(ctx, c, run, temporal.UpdateApprove, agent.ApprovalDecision{ID: pending[0].ID, DecidedBy: "ops"})
	if err == nil {
		err = run.Get(ctx, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	recorded := history(t, c, run)

	replay := func(name string, wf any) error {
		r := worker.NewWorkflowReplayer()
		r.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: name})
		return r.ReplayWorkflowHistory(silentLogger(), recorded)
	}
	// The same code replays the history, on a fresh agent as after a
	// worker restart.
	if err := replay(ta.WorkflowName(), testAgent(t, "support").Workflow); err != nil {
		t.Fatalf("replay with the same code: %v", err)
	}
	// Changed workflows do not: calls run one after another instead of
	// together, or an activity more.
	seq, err := temporal.New(agent.NewBuilder(scriptModel()).Name("support").Tool(addTool(), lookupTool(), deployTool()).
		Sequential(true).MustBuild(), temporal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := replay(ta.WorkflowName(), seq.Workflow); !nondeterministic(err) {
		t.Fatalf("replay of a sequential agent: %v", err)
	}
	extra := func(ctx workflow.Context, in temporal.WorkflowInput) (*temporal.Result, error) {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		if err := workflow.ExecuteActivity(actx, "support.audit", in.Prompt).Get(ctx, nil); err != nil {
			return nil, err
		}
		return ta.Workflow(ctx, in)
	}
	if err := replay(ta.WorkflowName(), extra); !nondeterministic(err) {
		t.Fatalf("replay with an extra activity: %v", err)
	}
}

// nondeterministic: err is the SDK's nondeterminism error (TMPRL1100).
func nondeterministic(err error) bool {
	return err != nil && strings.Contains(err.Error(), "TMPRL1100")
}

// toolEvents lists, in history order, "scheduled <tool>" and "done
// <tool>" for the tool activities of h.
func toolEvents(h *historypb.History, activity string) []string {
	names := map[int64]string{}
	var out []string
	for _, e := range h.Events {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activity {
			var summary string
			if p := e.GetUserMetadata().GetSummary(); p != nil {
				_ = converter.GetDefaultDataConverter().FromPayload(p, &summary)
			}
			name := strings.TrimPrefix(strings.Split(summary, ",")[0], "tool ")
			names[e.GetEventId()] = name
			out = append(out, "scheduled "+name)
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && names[a.GetScheduledEventId()] != "" {
			out = append(out, "done "+names[a.GetScheduledEventId()])
		}
	}
	return out
}

func TestBatchSchedulingFollowsTheAgentsConcurrency(t *testing.T) {
	c := dial(t)
	for _, tc := range []struct {
		name  string
		build func(*agent.Builder) *agent.Builder
		ok    func(events []string) bool
	}{
		// Two in flight; the third starts when the oldest ends (lookup
		// may end before or after that).
		{"max concurrency 2", func(b *agent.Builder) *agent.Builder { return b.MaxConcurrency(2) }, func(events []string) bool {
			return len(events) == 6 && events[0] == "scheduled add" && events[1] == "scheduled lookup" &&
				slices.Index(events, "scheduled double") > slices.Index(events, "done add")
		}},
		// And the agent's tool timeout bounds each call's activity.
		{"sequential", func(b *agent.Builder) *agent.Builder {
			return b.Sequential(true).Timeout(3 * time.Second).MaxRetries(0)
		}, func(events []string) bool {
			return strings.Join(events, ", ") == "scheduled add, done add, scheduled lookup, done lookup, scheduled double, done double"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			queue := uniqueQueue("sched")
			a := tc.build(agent.NewBuilder(scriptModel()).Name("sched").Tool(addTool(), lookupTool(), doubleTool())).MustBuild()
			ta, err := temporal.New(a, temporal.Options{})
			if err != nil {
				t.Fatal(err)
			}
			startWorker(t, c, queue, ta, nil)
			ctx := bounded(t, 60*time.Second)
			run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "add lookup double:3"})
			if err != nil {
				t.Fatal(err)
			}
			var res temporal.Result
			if err := run.Get(ctx, &res); err != nil {
				t.Fatal(err)
			}
			if res.Output != `add=3; lookup="found"; double="6"` {
				t.Fatalf("output %q", res.Output)
			}
			h := history(t, c, run)
			if events := toolEvents(h, ta.ToolActivityName()); !tc.ok(events) {
				t.Fatalf("tool activities: %s", strings.Join(events, ", "))
			}
			if tc.name != "sequential" {
				return // (the default timeout is cut to the workflow's)
			}
			want := 3*time.Second + temporal.DefaultTimeoutGrace
			for _, e := range h.Events {
				a := e.GetActivityTaskScheduledEventAttributes()
				if a != nil && a.GetActivityType().GetName() == ta.ToolActivityName() && a.GetStartToCloseTimeout().AsDuration() != want {
					t.Fatalf("start-to-close timeout %v, want %v", a.GetStartToCloseTimeout().AsDuration(), want)
				}
			}
		})
	}
}

func TestMessageHistoryContinuesAConversation(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("history")
	ta := testAgent(t, "support")
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	do := func(in temporal.WorkflowInput) temporal.Result {
		run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), in)
		var res temporal.Result
		if err == nil {
			err = run.Get(ctx, &res)
		}
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := do(temporal.WorkflowInput{Prompt: "add"})
	second := do(temporal.WorkflowInput{Prompt: "lookup", MessageHistory: first.Messages})
	if second.Output != `lookup="found"` || len(second.Messages) != len(first.Messages)+len(second.NewMessages) {
		t.Fatalf("second run: %q, %d messages after %d", second.Output, len(second.Messages), len(first.Messages))
	}
}

func TestReadyMadeWorkflowCompletesADeferredCall(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("deferred")
	ticket := tool.New("ticket", "Open a ticket a person answers", map[string]any{"type": "object"},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Result{}, tool.CallDeferred("a person answers", nil)
		})
	ta := testAgent(t, "support", ticket)
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "add ticket"})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(t, c, run)
	if len(pending) != 1 || pending[0].Kind != agent.PendingDeferred {
		t.Fatalf("pending: %+v", pending)
	}
	_, err = sendUpdate(ctx, c, run, temporal.UpdateComplete, agent.DeferredResult{ID: pending[0].ID, Status: agent.DeferredCompleted,
		Response: json.RawMessage(`"T-42"`)})
	var res temporal.Result
	if err == nil {
		err = run.Get(ctx, &res)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != `add=3; ticket="T-42"` {
		t.Fatalf("output %q", res.Output)
	}
}

// A tool that may defer returns Pending under the completion key it saw;
// the host completes the workflow's call by that key.
func TestReadyMadeWorkflowCompletesAPendingCallByKey(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("pending")
	var seen atomic.Value
	render := tool.New("ticket", "Open a ticket a worker answers", map[string]any{"type": "object"},
		func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			seen.Store(tc.CompletionKey())
			return tool.Result{}, tool.Pending("queued", tool.PendingCompletion{})
		}).WithAttemptMayDefer(true)
	ta := testAgent(t, "support", render)
	startWorker(t, c, queue, ta, nil)
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "add ticket"})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(t, c, run)
	if len(pending) != 1 || pending[0].CompletionKey == "" || pending[0].CompletionKey != seen.Load() {
		t.Fatalf("pending: %+v, tool saw %v", pending, seen.Load())
	}
	_, err = sendUpdate(ctx, c, run, temporal.UpdateComplete, agent.DeferredResult{ID: pending[0].CompletionKey,
		Status: agent.DeferredCompleted, Response: json.RawMessage(`"T-43"`)})
	var res temporal.Result
	if err == nil {
		err = run.Get(ctx, &res)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != `add=3; ticket="T-43"` {
		t.Fatalf("output %q", res.Output)
	}
}

// sendUpdate sends one answer to a ready-made workflow and waits for the
// update to complete; it returns what is still pending.
func sendUpdate(ctx context.Context, c client.Client, run client.WorkflowRun, name string, arg any) ([]agent.Pending, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: run.GetID(), RunID: run.GetRunID(),
		UpdateName: name, Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return nil, err
	}
	var open []agent.Pending
	err = h.Get(ctx, &open)
	return open, err
}
