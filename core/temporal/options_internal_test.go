package temporal

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	sdktemporal "go.temporal.io/sdk/temporal"
)

func TestRetryPolicyFollowsTheCallsEffect(t *testing.T) {
	safe := &sdktemporal.RetryPolicy{MaximumAttempts: 7}
	for _, tc := range []struct {
		name      string
		retrySafe bool
		attempts  int32
	}{
		// Pure, read-only, undeclared and keyed idempotent calls are
		// retry-safe (the loop decides RetrySafe from the effect).
		{"retry-safe", true, 7},
		// Non-idempotent and destructive calls, and idempotent writes
		// without a key, get one attempt.
		{"one attempt", false, 1},
	} {
		got := retryPolicy(agent.Call{RetrySafe: tc.retrySafe}, safe)
		if got.MaximumAttempts != tc.attempts {
			t.Errorf("%s: %d attempts, want %d", tc.name, got.MaximumAttempts, tc.attempts)
		}
	}
	// The safe policy is not modified for the others.
	if safe.MaximumAttempts != 7 {
		t.Fatal(safe)
	}
}

func testTemporalAgent(t *testing.T, o Options) *Agent {
	t.Helper()
	ta, err := New(agent.NewBuilder(model.TextModel("ok")).Name("svc").MustBuild(), o)
	if err != nil {
		t.Fatal(err)
	}
	return ta
}

func TestCallOptions(t *testing.T) {
	ta := testTemporalAgent(t, Options{TaskQueue: "tools", HeartbeatTimeout: 3 * time.Second})
	call := func(timeout time.Duration, retries int, safe bool) agent.Call {
		return agent.Call{Call: tool.Call{ID: "c7", Name: "charge"}, Effect: effect.ClassNonIdempotentWrite,
			Timeout: timeout, MaxRetries: retries, RetrySafe: safe}
	}
	// A call with a timeout: every attempt's bound plus the grace.
	o := ta.callOptions(call(10*time.Second, 2, false))
	if o.StartToCloseTimeout != 30*time.Second+DefaultTimeoutGrace || o.RetryPolicy.MaximumAttempts != 1 ||
		o.HeartbeatTimeout != 3*time.Second || o.TaskQueue != "tools" || o.Summary != "tool charge, call c7" {
		t.Fatalf("options: %+v", o)
	}
	// Without a timeout: the default; retry-safe: the agent's policy.
	o = ta.callOptions(call(0, 0, true))
	if o.StartToCloseTimeout != DefaultStartToCloseTimeout || o.RetryPolicy != ta.o.RetryPolicy ||
		o.RetryPolicy.MaximumAttempts != DefaultRetryPolicy().MaximumAttempts {
		t.Fatalf("options: %+v", o)
	}
	m := ta.modelOptions(agent.ModelRequest{Step: 3})
	if m.Summary != "model request, step 3" || m.RetryPolicy != ta.o.RetryPolicy || m.StartToCloseTimeout != DefaultStartToCloseTimeout {
		t.Fatalf("model options: %+v", m)
	}
}

func TestOptionsDefaultsAndNames(t *testing.T) {
	ta := testTemporalAgent(t, Options{})
	if ta.Name() != "svc" || ta.WorkflowName() != "svc.run" || ta.ModelActivityName() != "svc.model" || ta.ToolActivityName() != "svc.tool" {
		t.Fatalf("names: %s %s %s %s", ta.Name(), ta.WorkflowName(), ta.ModelActivityName(), ta.ToolActivityName())
	}
	if ta.o.HeartbeatTimeout != DefaultHeartbeatTimeout || ta.o.TimeoutGrace != DefaultTimeoutGrace || ta.o.RetryPolicy == nil {
		t.Fatalf("defaults: %+v", ta.o)
	}
	if ta := testTemporalAgent(t, Options{Name: "other"}); ta.ToolActivityName() != "other.tool" {
		t.Fatal(ta.ToolActivityName())
	}
	unnamed := agent.NewBuilder(model.TextModel("ok")).MustBuild()
	if _, err := New(unnamed, Options{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("an agent without a name: %v", err)
	}
	if _, err := New(unnamed, Options{Name: "x", HeartbeatTimeout: -time.Second}); !errors.Is(err, ErrConfig) {
		t.Fatalf("a negative timeout: %v", err)
	}
	if _, err := New(nil, Options{Name: "x"}); !errors.Is(err, ErrConfig) {
		t.Fatalf("a nil agent: %v", err)
	}
}

func TestModelFailureKeepsTheModelsWords(t *testing.T) {
	pe := model.ProviderError{Provider: "openai", StatusCode: 400, Message: "bad request"}
	app := sdktemporal.NewNonRetryableApplicationError(pe.Error(), errModel, nil, pe)
	err := modelFailure(fmt.Errorf("activity error: %w", app))
	var got *model.ProviderError
	if err.Error() != pe.Error() || !errors.Is(err, model.ErrModel) || !errors.As(err, &got) || got.StatusCode != 400 {
		t.Fatalf("err = %v (%T)", err, err)
	}
	other := modelFailure(errors.New("activity timed out"))
	if errors.Is(other, model.ErrModel) || other.Error() != "temporal: the model request's activity failed: activity timed out" {
		t.Fatalf("err = %v", other)
	}
}

func TestFallbackFailureKeepsItsAttempts(t *testing.T) {
	pe := &model.ProviderError{Provider: "openai", StatusCode: 503, Message: "overloaded"}
	fe := model.NewFallbackError([]model.Attempt{{Model: "a", Provider: "openai", StatusCode: 503, Error: pe.Error()}, {Model: "b", Error: "dial tcp: refused"}},
		[]error{pe, errors.New("dial tcp: refused")})
	app := sdktemporal.NewNonRetryableApplicationError(fe.Error(), errFallback, nil, fallbackDetails(fe))
	err := modelFailure(fmt.Errorf("activity error: %w", app))
	var got *model.FallbackError
	var first *model.ProviderError
	if err.Error() != fe.Error() || !errors.Is(err, model.ErrModel) || !errors.As(err, &got) || len(got.Attempts) != 2 ||
		!errors.As(err, &first) || first.StatusCode != 503 {
		t.Fatalf("err = %v (%T)", err, err)
	}
}
