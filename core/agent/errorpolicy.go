package agent

import (
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// ToolErrorPolicy says what a run does when a tool call fails.
type ToolErrorPolicy int

const (
	// ReturnToModel gives the failure to the model as the call's error
	// return (redacted; see tool.Redact) and lets it carry on. It is the
	// default.
	ReturnToModel ToolErrorPolicy = iota
	// FailFast ends the run, failed with a *ToolFailedError, once the
	// batch holding a failed call has run (see FailsFast for the kinds
	// that count). The batch's returns, the failure's included, stay in
	// the session's history, as for any failed run.
	FailFast
)

// ErrToolFailed: under FailFast, a tool call failed; the error is a
// *ToolFailedError naming it.
var ErrToolFailed = errors.New("agent: tool failed")

// String returns the policy's slug: "return_to_model" or "fail_fast".
func (p ToolErrorPolicy) String() string {
	switch p {
	case ReturnToModel:
		return "return_to_model"
	case FailFast:
		return "fail_fast"
	}
	return fmt.Sprintf("ToolErrorPolicy(%d)", int(p))
}

// MarshalText writes the policy's slug.
func (p ToolErrorPolicy) MarshalText() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads a slug; any other text is an ErrConfig error.
func (p *ToolErrorPolicy) UnmarshalText(b []byte) error {
	switch string(b) {
	case "return_to_model":
		*p = ReturnToModel
	case "fail_fast":
		*p = FailFast
	default:
		return fmt.Errorf("%w: tool error policy must be \"return_to_model\" or \"fail_fast\", got %q", ErrConfig, b)
	}
	return nil
}

func (p ToolErrorPolicy) check() error {
	if p != ReturnToModel && p != FailFast {
		return fmt.Errorf("%w: unknown tool error policy %d", ErrConfig, int(p))
	}
	return nil
}

// FailsFast reports whether a call that ended with kind k fails a run
// under FailFast: the tool failed to do its work (execution, timeout,
// user_error, invalid_output, and deferred_failed, the failure of work a
// call deferred). The other kinds are not failures of the tool: the
// model's mistakes, which it corrects within its budget (not_found,
// invalid_arguments, model_retry), guidance (feedback), paused calls
// (approval_required, call_deferred), a person's decision
// (approval_denied) and cancellations (cancelled, deferred_cancelled),
// which end the run by themselves when the run is cancelled. A call that
// succeeds is never a failure, not even one whose output the model reads
// as an error (tool.ModelError).
func FailsFast(k tool.ErrorKind) bool {
	switch k {
	case tool.ErrorKindExecution, tool.ErrorKindTimeout, tool.ErrorKindUserError, tool.ErrorKindInvalidOutput,
		tool.ErrorKindDeferredFailed:
		return true
	}
	return false
}

// ToolErrorPolicy sets what runs do when a tool call fails (ReturnToModel
// by default); WithToolErrorPolicy overrides it per run. A value other
// than the two policies makes Build report ErrConfig.
func (b *Builder) ToolErrorPolicy(p ToolErrorPolicy) *Builder {
	if err := p.check(); err != nil {
		b.fail(err)
		return b
	}
	b.opts.ToolErrorPolicy = p
	return b
}

// WithToolErrorPolicy sets this run's tool error policy over the agent's.
// A value other than the two policies makes the run fail with ErrConfig
// before it starts.
func WithToolErrorPolicy(p ToolErrorPolicy) RunOption {
	return func(o *runOptions) { o.toolErrorPolicy = &p }
}

// ToolFailedError names the call that failed a run under FailFast.
type ToolFailedError struct {
	Tool       string
	ToolCallID string
	Kind       tool.ErrorKind
	// Message is the error's full message, unredacted: the model never
	// reads it (its return holds the redacted one), the application does.
	Message string
}

func (e *ToolFailedError) Error() string {
	return fmt.Sprintf("%v: tool %q (call %q) failed with %s: %s", ErrToolFailed, e.Tool, e.ToolCallID, e.Kind, e.Message)
}

// Is makes errors.Is(err, ErrToolFailed) hold.
func (e *ToolFailedError) Is(target error) bool { return target == ErrToolFailed }

// toolErrorPolicy is the run's policy: its own, else the agent's.
func (r *runner) toolErrorPolicy() ToolErrorPolicy {
	if r.o.toolErrorPolicy != nil {
		return *r.o.toolErrorPolicy
	}
	return r.a.toolErrorPolicy
}

// failFast returns the error that ends the run because of ret, or nil
// when the run goes on: the policy is ReturnToModel, or ret is no
// failure (see FailsFast).
func (r *runner) failFast(ret *tool.Return) error {
	if ret.Runtime == nil || !FailsFast(ret.Runtime.ErrorKind) || r.toolErrorPolicy() != FailFast {
		return nil
	}
	return &ToolFailedError{Tool: ret.Name, ToolCallID: ret.ToolCallID, Kind: ret.Runtime.ErrorKind, Message: tool.ErrorMessage(*ret)}
}
