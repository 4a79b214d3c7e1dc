package temporal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// down is a named model failing with err.
type down struct {
	name string
	err  error
}

func (d down) Name() string { return d.name }

func (d down) Request(context.Context, []model.Message, model.Params) (model.Message, error) {
	return model.Message{}, d.err
}

// fallbackReport is what fallbackWorkflow saw of its run, in workflow
// code: the failure as the loop returned it, or the answer's attempts.
type fallbackReport struct {
	Failed     bool            `json:"failed"`
	Error      string          `json:"error"`
	IsModel    bool            `json:"is_model"`
	IsFallback bool            `json:"is_fallback"`
	Attempts   []model.Attempt `json:"attempts"`
	// FirstStatus is the status of the first provider error errors.As
	// finds, as for a local run.
	FirstStatus int    `json:"first_status"`
	Requests    int    `json:"requests"`
	Output      string `json:"output"`
}

func fallbackWorkflow(ta *temporal.Agent) func(workflow.Context, string) (fallbackReport, error) {
	return func(ctx workflow.Context, prompt string) (fallbackReport, error) {
		res, err := ta.Run(ctx, prompt)
		var rep fallbackReport
		if err != nil {
			rep.Failed, rep.Error, rep.IsModel = true, err.Error(), errors.Is(err, model.ErrModel)
			var fe *model.FallbackError
			if errors.As(err, &fe) {
				rep.IsFallback, rep.Attempts = true, fe.Attempts
			}
			var pe *model.ProviderError
			if errors.As(err, &pe) {
				rep.FirstStatus = pe.StatusCode
			}
			return rep, nil
		}
		last := res.Messages[len(res.Messages)-1]
		rep.Attempts, rep.Requests, rep.Output = last.Attempts, res.Usage.Requests, res.Output
		return rep, nil
	}
}

func runFallback(t *testing.T, models ...model.Model) (fallbackReport, error) {
	t.Helper()
	c := dial(t)
	queue := uniqueQueue("fallback")
	f, err := model.NewFallback(models, model.FallbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ta, err := temporal.New(agent.NewBuilder(f).Name("fallback").MustBuild(), temporal.Options{HeartbeatTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	startWorker(t, c, queue, ta, func(r worker.Registry) {
		r.RegisterWorkflowWithOptions(fallbackWorkflow(ta), workflow.RegisterOptions{Name: "fallback_report"})
	})
	ctx := bounded(t, 60*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), "fallback_report", "hi")
	if err != nil {
		t.Fatal(err)
	}
	var rep fallbackReport
	return rep, run.Get(ctx, &rep)
}

// A durable run whose every model fails fails as a local one does: with
// a *model.FallbackError listing the attempts (what the bridge reports
// as code "fallback_failed"), each attempt's provider error kept.
func TestFallbackFailureCrossesTheActivity(t *testing.T) {
	local, _ := agent.NewBuilder(mustFallback(t, failingModels()...)).MustBuild().Run(context.Background(), "hi")
	rep, err := runFallback(t, failingModels()...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed || !rep.IsModel || !rep.IsFallback || rep.Error != local.Error {
		t.Fatalf("report %+v, want the local error %q", rep, local.Error)
	}
	if len(rep.Attempts) != 2 || rep.Attempts[0].Model != "gpt-4.1" || rep.Attempts[0].StatusCode != 503 ||
		rep.Attempts[1].Provider != "anthropic" || rep.Attempts[1].StatusCode != 529 || !rep.Attempts[1].Sent || rep.Attempts[1].Start.IsZero() {
		t.Fatalf("attempts %+v", rep.Attempts)
	}
	if rep.FirstStatus != 503 {
		t.Fatalf("first provider error: status %d", rep.FirstStatus)
	}
}

// A durable run answered by the second model keeps the failed attempt in
// the answer, and counts it.
func TestFallbackAnswerCrossesTheActivity(t *testing.T) {
	rep, err := runFallback(t, failingModels()[0], model.TextModel("from the second"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed || rep.Output != "from the second" || len(rep.Attempts) != 1 || rep.Attempts[0].StatusCode != 503 || rep.Requests != 2 {
		t.Fatalf("report %+v", rep)
	}
}

func failingModels() []model.Model {
	return []model.Model{
		down{"gpt-4.1", &model.ProviderError{Provider: "openai", StatusCode: 503, Message: "overloaded"}},
		down{"claude-sonnet-4-5", &model.ProviderError{Provider: "anthropic", StatusCode: 529, Code: "overloaded_error", Message: "overloaded"}},
	}
}

func mustFallback(t *testing.T, models ...model.Model) *model.Fallback {
	t.Helper()
	f, err := model.NewFallback(models, model.FallbackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
