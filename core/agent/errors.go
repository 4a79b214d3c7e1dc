package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/model"
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
	// ErrUsageLimitExceeded: the run would pass one of its usage limits
	// (see UsageLimits); the error is a *UsageLimitError naming it.
	ErrUsageLimitExceeded = errors.New("agent: usage limit exceeded")
	// ErrMaxSteps is ErrUsageLimitExceeded under its older name: the step
	// limit is the request limit.
	ErrMaxSteps = ErrUsageLimitExceeded
	// ErrSessionBusy: a session was asked to run while it already runs.
	ErrSessionBusy = errors.New("agent: session is busy")
	// ErrConfig: the agent or the run options are inconsistent (duplicate
	// tool names, malformed schemas, a missing model).
	ErrConfig = errors.New("agent: invalid configuration")
	// ErrInvalidLimit: a usage limit (or the step limit) is zero or
	// negative. It matches ErrConfig too.
	ErrInvalidLimit = fmt.Errorf("%w: usage limits must be positive", ErrConfig)
	// ErrState: an operation does not fit the session's state.
	ErrState = errors.New("agent: invalid state")
	// ErrInvalidDecision: an approval decision is malformed (no explicit
	// approved, override arguments that are not JSON, unknown fields). It
	// matches ErrState too; hosts that check decisions themselves report
	// the same kind.
	ErrInvalidDecision = fmt.Errorf("%w: invalid approval decision", ErrState)
	// ErrInvalidResult: a deferred result is malformed (an unknown status,
	// a response that is not JSON). It matches ErrState too.
	ErrInvalidResult = fmt.Errorf("%w: invalid deferred result", ErrState)
	// ErrInvalidSettings: model settings are out of range (a temperature
	// above 2, a negative token limit...). It matches ErrConfig too.
	ErrInvalidSettings = fmt.Errorf("%w: invalid model settings", ErrConfig)
	// ErrOutput: an output validator failed with an error that is not a
	// correction for the model (see OutputValidator).
	ErrOutput = errors.New("agent: output validation failed")
	// ErrInvalidHistory: a message history a session cannot continue from
	// (see ValidateHistory).
	ErrInvalidHistory = errors.New("agent: invalid message history")
	// ErrToolOutputNotVisible: a tool returned host-only output (see
	// tool.HostOnly) that the run would have shown its model; the error is
	// a *ToolOutputNotVisibleError naming the call.
	ErrToolOutputNotVisible = errors.New("agent: tool output is not visible to models")
	// ErrArtifacts: reading an artifact into a model request, or spilling
	// an output to the artifact store, failed. The error wraps the
	// artifact package's error, so artifact.KindOf classifies it (a scope
	// mismatch or a size over the limit is artifact.KindInvalid).
	ErrArtifacts = errors.New("agent: artifact store failure")
)

// ToolOutputNotVisibleError names the call whose host-only output a run
// refused to show its model. The run fails whatever the tool's error
// handling (a host-only output is no tool error, so no retry, budget or
// hook turns it into something the model reads); the call itself ran, and
// its return in history says only that its output was withheld.
type ToolOutputNotVisibleError struct {
	Tool       string
	ToolCallID string
}

func (e *ToolOutputNotVisibleError) Error() string {
	return fmt.Sprintf("%v: the output of tool %q (call %q) is host-only and was not sent to the model", ErrToolOutputNotVisible, e.Tool, e.ToolCallID)
}

// Is makes errors.Is(err, ErrToolOutputNotVisible) hold.
func (e *ToolOutputNotVisibleError) Is(target error) bool { return target == ErrToolOutputNotVisible }

// RetryLimitError names the tool that exhausted its budget.
type RetryLimitError struct {
	Tool       string
	MaxRetries int
	// Unknown is set when the model kept calling a tool that does not
	// exist for the run: unknown names spend the same budget as model
	// corrections, counted per name.
	Unknown bool
	// Output is set when the budget spent is the output-retry budget: the
	// model kept giving structured answers that failed validation (Tool
	// names the output tool).
	Output bool
}

func (e *RetryLimitError) Error() string {
	if e.Output {
		return fmt.Sprintf("output %q exceeded max retries count of %d (the model's structured answers kept failing validation)", e.Tool, e.MaxRetries)
	}
	if e.Unknown {
		return fmt.Sprintf("unknown tool %q exceeded max retries count of %d (no tool of that name exists for this run)", e.Tool, e.MaxRetries)
	}
	return fmt.Sprintf("tool %q exceeded max retries count of %d", e.Tool, e.MaxRetries)
}

// Is makes errors.Is(err, ErrRetryLimit) hold.
func (e *RetryLimitError) Is(target error) bool { return target == ErrRetryLimit }

// UsageLimitError names the usage limit a run would have passed.
type UsageLimitError struct {
	// Limit is the limit's name (LimitRequests, LimitToolCalls, ...).
	Limit string
	// Value is the limit; Used is the usage that passed it (for the
	// request and tool-call limits, counting the request or batch that
	// was refused).
	Value int
	Used  int
}

func (e *UsageLimitError) Error() string {
	switch e.Limit {
	case LimitRequests:
		return fmt.Sprintf("%v: the next request would exceed the request_limit of %d", ErrUsageLimitExceeded, e.Value)
	case LimitToolCalls:
		return fmt.Sprintf("%v: the next tool calls would exceed the tool_calls_limit of %d (tool_calls=%d)", ErrUsageLimitExceeded, e.Value, e.Used)
	}
	return fmt.Sprintf("%v: exceeded the %s of %d (%s=%d)", ErrUsageLimitExceeded, e.Limit, e.Value, strings.TrimSuffix(e.Limit, "_limit"), e.Used)
}

// Is makes errors.Is(err, ErrUsageLimitExceeded) hold.
func (e *UsageLimitError) Is(target error) bool { return target == ErrUsageLimitExceeded }

// modelError marks a model's own failure as ErrModel without putting the
// words of both in front of the provider's: callers read "model: request
// failed: openai (...)", not "agent: model failed: model: request failed:
// ...".
type modelError struct{ err error }

func (e *modelError) Error() string   { return e.err.Error() }
func (e *modelError) Unwrap() []error { return []error{ErrModel, e.err} }

// asModelError wraps err, a failed model request, as ErrModel.
func asModelError(err error) error {
	if errors.Is(err, model.ErrModel) {
		return &modelError{err: err}
	}
	return fmt.Errorf("%w: %w", ErrModel, err)
}
