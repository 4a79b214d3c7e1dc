package temporal

import (
	"errors"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// ErrConfig reports Options or run options that cannot work.
var ErrConfig = errors.New("temporal: invalid configuration")

// Defaults of Options.
const (
	DefaultStartToCloseTimeout = 30 * time.Minute
	DefaultHeartbeatTimeout    = 30 * time.Second
	DefaultTimeoutGrace        = 5 * time.Second
)

// DefaultRetryPolicy is the retry policy of retry-safe calls and model
// requests when Options sets none: three attempts, one second apart and
// then doubling.
func DefaultRetryPolicy() *sdktemporal.RetryPolicy {
	return &sdktemporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 3}
}

// Options configures an Agent. A zero field takes its default.
type Options struct {
	// Name names the agent's workflow ("<name>.run") and activities
	// ("<name>.model", "<name>.tool"); it defaults to the agent's name
	// and one of the two must be set. Workers of one agent must use the
	// same name, and two agents on one worker different names.
	Name string
	// TaskQueue is the task queue of the activities; empty: the
	// workflow's own.
	TaskQueue string
	// StartToCloseTimeout bounds a model request, and a call whose tool
	// has no timeout (DefaultStartToCloseTimeout).
	StartToCloseTimeout time.Duration
	// HeartbeatTimeout is how long a silent activity is taken for lost
	// (DefaultHeartbeatTimeout). Activities heartbeat several times per
	// timeout while they run.
	HeartbeatTimeout time.Duration
	// TimeoutGrace is added to a call's own bound, so the tool's timeout
	// fires before the activity's (DefaultTimeoutGrace).
	TimeoutGrace time.Duration
	// RetryPolicy is the retry policy of model requests and retry-safe
	// calls (DefaultRetryPolicy). Other calls never retry.
	RetryPolicy *sdktemporal.RetryPolicy
}

func (o Options) withDefaults(a *agent.Agent) (Options, error) {
	if o.Name == "" {
		o.Name = a.Name()
	}
	if o.Name == "" {
		return o, fmt.Errorf("%w: Options.Name is empty and the agent has no name", ErrConfig)
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"StartToCloseTimeout", &o.StartToCloseTimeout, DefaultStartToCloseTimeout},
		{"HeartbeatTimeout", &o.HeartbeatTimeout, DefaultHeartbeatTimeout},
		{"TimeoutGrace", &o.TimeoutGrace, DefaultTimeoutGrace},
	} {
		switch {
		case *d.v < 0:
			return o, fmt.Errorf("%w: Options.%s must not be negative, got %v", ErrConfig, d.name, *d.v)
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = DefaultRetryPolicy()
	}
	return o, nil
}

// RunOption configures one Run or Resume. Its values become part of the
// workflow's decisions: pass the same ones when the workflow replays
// (take them from the workflow's input).
type RunOption func(*runConfig)

type runConfig struct {
	history  []model.Message
	metadata map[string]any
	limits   *agent.UsageLimits
	grants   []string
}

// WithMessageHistory continues the conversation msgs (the Messages of an
// earlier result) instead of starting a new one. Resume ignores it.
func WithMessageHistory(msgs []model.Message) RunOption {
	return func(c *runConfig) { c.history = msgs }
}

// WithMetadata gives the run metadata (agent.WithMetadata); it travels
// with every call to the workers.
func WithMetadata(md map[string]any) RunOption {
	return func(c *runConfig) { c.metadata = md }
}

// WithUsageLimits bounds the run (agent.WithUsageLimits).
func WithUsageLimits(l agent.UsageLimits) RunOption {
	return func(c *runConfig) { c.limits = &l }
}

// withGrants narrows the run's tools to grants (agent.WithGrants): the
// grants of a child run.
func withGrants(grants []string) RunOption {
	return func(c *runConfig) { c.grants = grants }
}

func collect(opts []RunOption) runConfig {
	var c runConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// agentOptions are c as the loop's options.
func (c runConfig) agentOptions() []agent.RunOption {
	var out []agent.RunOption
	if c.metadata != nil {
		out = append(out, agent.WithMetadata(c.metadata))
	}
	if c.limits != nil {
		out = append(out, agent.WithUsageLimits(*c.limits))
	}
	if c.grants != nil {
		out = append(out, agent.WithGrants(c.grants...))
	}
	return out
}
