package agent

import (
	"errors"
	"fmt"
)

// Sentinel errors of a run. Failures wrap one of them, so callers can
// test with errors.Is.
var (
	// ErrRetryLimit: a tool spent its model-correction budget.
	ErrRetryLimit = errors.New("agent: tool retry limit exceeded")
	// ErrUnavailableTools: the fail-run policy rejected unavailable tools.
	ErrUnavailableTools = errors.New("agent: unavailable tools rejected by policy")
	// ErrModel: the model failed or answered with something unusable.
	ErrModel = errors.New("agent: model failed")
	// ErrCancelled: the run's context ended.
	ErrCancelled = errors.New("agent: run cancelled")
	// ErrMaxSteps: the run made more model requests than allowed.
	ErrMaxSteps = errors.New("agent: step limit reached")
	// ErrSessionBusy: a session was asked to run while it already runs.
	ErrSessionBusy = errors.New("agent: session is busy")
	// ErrConfig: the agent or the run options are inconsistent (duplicate
	// tool names, malformed schemas, a missing model).
	ErrConfig = errors.New("agent: invalid configuration")
	// ErrState: an operation does not fit the session's state.
	ErrState = errors.New("agent: invalid state")
)

// RetryLimitError names the tool that exhausted its budget.
type RetryLimitError struct {
	Tool       string
	MaxRetries int
}

func (e *RetryLimitError) Error() string {
	return fmt.Sprintf("tool %q exceeded max retries count of %d", e.Tool, e.MaxRetries)
}

// Is makes errors.Is(err, ErrRetryLimit) hold.
func (e *RetryLimitError) Is(target error) bool { return target == ErrRetryLimit }
