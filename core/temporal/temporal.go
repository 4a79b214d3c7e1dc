package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Agent runs an agent.Agent's runs on Temporal. The workflow side (Run,
// Resume, Workflow) and the worker side (Register) use the same Agent, or
// Agents built alike with the same Options.Name. An Agent is safe for
// concurrent use; it holds no state of its runs.
type Agent struct {
	a *agent.Agent
	o Options
}

// New returns the durable face of a (see the package doc for what runs
// where).
func New(a *agent.Agent, o Options) (*Agent, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil agent", ErrConfig)
	}
	o, err := o.withDefaults(a)
	if err != nil {
		return nil, err
	}
	return &Agent{a: a, o: o}, nil
}

// Name is Options.Name, or the agent's name when that was empty.
func (t *Agent) Name() string { return t.o.Name }

// WorkflowName is the name Register gives Workflow: "<name>.run".
func (t *Agent) WorkflowName() string { return t.o.Name + ".run" }

// ModelActivityName is the activity type of model requests: "<name>.model".
func (t *Agent) ModelActivityName() string { return t.o.Name + ".model" }

// ToolActivityName is the activity type of tool calls: "<name>.tool".
func (t *Agent) ToolActivityName() string { return t.o.Name + ".tool" }

// Register registers the model and tool activities, the ready-made
// workflow and the child workflow on w, under the names above, and the
// child workflow and activities of every agent a run may start as a
// child (agent.Agent.ChildAgents: agent tools and subagent routes, all
// the way down), each named by its label with t's other options. A
// worker that only runs user workflows calling Run still needs the
// activities (here or on the worker of Options.TaskQueue).
//
// Names must be unique on a worker: an agent and a child of another
// agent with the same name (label) are taken for the same agent, and the
// last registration wins.
func (t *Agent) Register(w worker.Registry) {
	w.RegisterWorkflowWithOptions(t.Workflow, workflow.RegisterOptions{Name: t.WorkflowName()})
	t.registerTree(w)
}

// Error types of the activities' application errors.
const (
	// errModel: the model failed after its own retries (not retried).
	errModel = "starweaver.model_error"
	// errFallback: every model of a model.Fallback failed (not retried);
	// the details are a fallbackFailure.
	errFallback = "starweaver.fallback_failed"
	// errBadBatch: a tool activity got what no workflow of this package
	// sends (not retried).
	errBadBatch = "starweaver.bad_batch"
)

// requestModel is the model activity.
func (t *Agent) requestModel(ctx context.Context, req agent.ModelRequest) (model.Message, error) {
	defer heartbeat(ctx)()
	resp, err := t.a.RequestModel(ctx, req)
	if err == nil {
		return resp, nil
	}
	if ctx.Err() != nil {
		// The worker stops or the activity timed out: another attempt
		// may succeed.
		return model.Message{}, err
	}
	var pe *model.ProviderError
	var fe *model.FallbackError
	switch {
	case errors.As(err, &fe):
		return model.Message{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), errFallback, nil, fallbackDetails(fe))
	case errors.As(err, &pe):
		return model.Message{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), errModel, nil, *pe)
	}
	return model.Message{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), errModel, nil)
}

// fallbackFailure is a *model.FallbackError as it crosses Temporal: its
// attempts, and each attempt's provider error where it had one (nil
// where not), from which the workflow's side rebuilds it (modelFailure).
type fallbackFailure struct {
	Attempts  []model.Attempt        `json:"attempts"`
	Providers []*model.ProviderError `json:"providers"`
}

func fallbackDetails(fe *model.FallbackError) fallbackFailure {
	out := fallbackFailure{Attempts: fe.Attempts, Providers: make([]*model.ProviderError, len(fe.Attempts))}
	for i, err := range fe.Unwrap() {
		var pe *model.ProviderError
		if i < len(out.Providers) && errors.As(err, &pe) {
			out.Providers[i] = pe
		}
	}
	return out
}

// runCall is the tool activity: the batch holds one call.
func (t *Agent) runCall(ctx context.Context, b agent.Batch) (tool.Return, error) {
	if len(b.Calls) != 1 {
		return tool.Return{}, sdktemporal.NewNonRetryableApplicationError(
			fmt.Sprintf("a tool activity runs one call, got %d", len(b.Calls)), errBadBatch, nil)
	}
	defer heartbeat(ctx)()
	rets, err := t.a.RunBatch(ctx, b, nil)
	switch {
	case err == nil && len(rets) == 1:
		return rets[0], nil
	case err == nil:
		return tool.Return{}, fmt.Errorf("temporal: the agent answered %d returns for one call", len(rets))
	case errors.Is(err, agent.ErrState) || errors.Is(err, agent.ErrConfig):
		return tool.Return{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), errBadBatch, err)
	}
	// Cancelled (the worker stops): the workflow's retry policy decides.
	return tool.Return{}, fmt.Errorf("temporal: running call %s (%s): %w", b.Calls[0].ID, b.Calls[0].Name, err)
}

// heartbeat heartbeats the activity of ctx while it runs, so that a lost
// worker is noticed within the heartbeat timeout; the returned function
// stops it. The SDK throttles what reaches the server.
func heartbeat(ctx context.Context) (stop func()) {
	timeout := activity.GetInfo(ctx).HeartbeatTimeout
	if timeout <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(timeout / 4)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done); <-stopped }
}
