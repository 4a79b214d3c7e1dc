package tool

import (
	"errors"
	"fmt"
	"maps"
)

// ErrorKind is the stable slug of a tool failure. Hosts, the Python package
// and the model all see the same slugs.
type ErrorKind string

// The error kinds. Their returns are described on Error.
const (
	ErrorKindNotFound         ErrorKind = "not_found"
	ErrorKindInvalidArguments ErrorKind = "invalid_arguments"
	ErrorKindModelRetry       ErrorKind = "model_retry"
	ErrorKindFeedback         ErrorKind = "feedback"
	ErrorKindUserError        ErrorKind = "user_error"
	ErrorKindExecution        ErrorKind = "execution"
	ErrorKindTimeout          ErrorKind = "timeout"
	ErrorKindCancelled        ErrorKind = "cancelled"
	ErrorKindApprovalRequired ErrorKind = "approval_required"
	ErrorKindCallDeferred     ErrorKind = "call_deferred"

	// The outcomes of resolving a paused call (core/agent's resume): a
	// person denied the call, or the deferred work failed or was cancelled.
	// Only the runtime produces them; a tool cannot return them.
	ErrorKindApprovalDenied    ErrorKind = "approval_denied"
	ErrorKindDeferredFailed    ErrorKind = "deferred_failed"
	ErrorKindDeferredCancelled ErrorKind = "deferred_cancelled"

	// ErrorKindInvalidOutput is a call whose output the runtime refused:
	// larger than the registry's limit (see Registry.SetMaxOutputBytes) or
	// holding a malformed content part. Only the runtime produces it.
	ErrorKindInvalidOutput ErrorKind = "invalid_output"
)

// errorKinds is the one list of kinds; ErrorKinds and ParseErrorKind read it.
var errorKinds = [...]ErrorKind{ErrorKindNotFound, ErrorKindInvalidArguments, ErrorKindModelRetry, ErrorKindFeedback, ErrorKindUserError,
	ErrorKindExecution, ErrorKindTimeout, ErrorKindCancelled, ErrorKindApprovalRequired, ErrorKindCallDeferred,
	ErrorKindApprovalDenied, ErrorKindDeferredFailed, ErrorKindDeferredCancelled, ErrorKindInvalidOutput}

// ErrorKinds lists every kind, for parity checks with other languages. The
// caller owns the returned slice.
func ErrorKinds() []ErrorKind {
	return append([]ErrorKind(nil), errorKinds[:]...)
}

// ErrUnknownErrorKind is returned by ParseErrorKind for a slug that is not
// one of ErrorKinds.
var ErrUnknownErrorKind = errors.New("tool: unknown error kind")

// ParseErrorKind returns the kind whose slug is s, or an error wrapping
// ErrUnknownErrorKind.
func ParseErrorKind(s string) (ErrorKind, error) {
	for _, k := range errorKinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w %q", ErrUnknownErrorKind, s)
}

// ToolRaisable reports whether a tool may fail with kind k. The kinds only
// the runtime decides (not_found and the outcomes of resolving a paused
// call) are not; a host that reports one has misbehaved, and its outcome
// is treated as an execution failure.
func (k ErrorKind) ToolRaisable() bool {
	switch k {
	case ErrorKindInvalidArguments, ErrorKindModelRetry, ErrorKindFeedback, ErrorKindUserError, ErrorKindExecution,
		ErrorKindTimeout, ErrorKindCancelled, ErrorKindApprovalRequired, ErrorKindCallDeferred:
		return true
	default:
		return false
	}
}

// Flags are the retry properties every error return carries.
type Flags struct {
	// IsError is false for outcomes the model may simply read (feedback, an
	// unknown tool).
	IsError bool
	// Retryable says that calling again may succeed.
	Retryable bool
	// CorrectedInput says that a retry needs different arguments.
	CorrectedInput bool
	// ModelRetryable marks returns that spend the model-correction budget.
	ModelRetryable bool
	// Unexpected marks failures the registry re-executes internally.
	Unexpected bool
}

// FlagsOf returns the flags of a kind. Unknown kinds behave like execution.
func FlagsOf(k ErrorKind) Flags {
	switch k {
	case ErrorKindNotFound:
		return Flags{Retryable: true, CorrectedInput: true}
	case ErrorKindInvalidArguments, ErrorKindModelRetry:
		return Flags{IsError: true, Retryable: true, CorrectedInput: true, ModelRetryable: true}
	case ErrorKindFeedback:
		return Flags{Retryable: true}
	case ErrorKindUserError, ErrorKindCancelled, ErrorKindApprovalRequired, ErrorKindCallDeferred,
		ErrorKindApprovalDenied, ErrorKindDeferredFailed, ErrorKindDeferredCancelled, ErrorKindInvalidOutput:
		return Flags{IsError: true}
	case ErrorKindTimeout:
		return Flags{IsError: true, Retryable: true, CorrectedInput: true}
	default:
		return Flags{IsError: true, Retryable: true, Unexpected: true}
	}
}

// Error is a typed tool failure. Tools return it (usually through the
// constructors below) to choose how the runtime and the model react; any
// other error a tool returns is treated as an unexpected execution failure.
type Error struct {
	Kind    ErrorKind
	Message string
	// Tool is the tool name; the registry fills it in.
	Tool string
	// Metadata is the request metadata of approval and deferred outcomes.
	Metadata map[string]any
	// PrivateMetadata is host-only detail; it never reaches the model.
	PrivateMetadata map[string]any
	// TimeoutMS is the effective timeout of a timeout error.
	TimeoutMS int64
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	if e == nil {
		return "tool: <nil error>"
	}
	name := e.Tool
	if name == "" {
		name = "?"
	}
	switch e.Kind {
	case ErrorKindNotFound:
		return fmt.Sprintf("tool %q is not registered for this run", name)
	case ErrorKindInvalidArguments:
		return fmt.Sprintf("tool %s received invalid arguments: %s", name, e.Message)
	case ErrorKindModelRetry:
		return fmt.Sprintf("tool %s requested model retry: %s", name, e.Message)
	case ErrorKindFeedback:
		return fmt.Sprintf("tool %s feedback: %s", name, e.Message)
	case ErrorKindUserError:
		return fmt.Sprintf("tool %s user error: %s", name, e.Message)
	case ErrorKindTimeout:
		return fmt.Sprintf("tool %s execution exceeded the %dms timeout", name, e.TimeoutMS)
	case ErrorKindCancelled:
		return fmt.Sprintf("tool %s cancelled: %s", name, e.Message)
	case ErrorKindApprovalRequired:
		return fmt.Sprintf("tool %s call requires approval before execution", name)
	case ErrorKindCallDeferred:
		return fmt.Sprintf("tool %s call was deferred to an external worker or later run", name)
	case ErrorKindApprovalDenied:
		return fmt.Sprintf("tool %s call was denied: %s", name, e.Message)
	case ErrorKindDeferredFailed:
		return fmt.Sprintf("tool %s deferred call failed: %s", name, e.Message)
	case ErrorKindDeferredCancelled:
		return fmt.Sprintf("tool %s deferred call was cancelled: %s", name, e.Message)
	case ErrorKindInvalidOutput:
		return fmt.Sprintf("tool %s returned an invalid output: %s", name, e.Message)
	default:
		return fmt.Sprintf("tool %s execution failed: %s", name, e.Message)
	}
}

func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// HowToFix is the fixed guidance sentence the model reads for each kind.
func (e *Error) HowToFix() string {
	switch e.Kind {
	case ErrorKindNotFound:
		return "Call one of the tools listed in the request; this name is not available."
	case ErrorKindInvalidArguments:
		return "Correct the tool arguments so they match the tool's parameter schema, then call the tool again."
	case ErrorKindModelRetry:
		return "Adjust the tool call as requested and try again: " + e.Message
	case ErrorKindFeedback:
		return "Read the feedback and decide how to continue: " + e.Message
	case ErrorKindUserError:
		return "The tool was wired or used incorrectly by the application; do not retry the same call."
	case ErrorKindTimeout:
		return "The tool took too long; retry with a smaller request or continue without it."
	case ErrorKindCancelled:
		return "The run was cancelled; do not retry."
	case ErrorKindApprovalRequired:
		return "Wait for a person to approve or deny this call."
	case ErrorKindCallDeferred:
		return "Wait for the deferred result to be supplied."
	case ErrorKindApprovalDenied:
		return "A person denied this call; do not call it again with the same arguments, continue without it."
	case ErrorKindDeferredFailed:
		return "The deferred work failed; continue without its result or take another approach."
	case ErrorKindDeferredCancelled:
		return "The deferred work was cancelled; do not retry, continue without its result."
	case ErrorKindInvalidOutput:
		return "The tool produced an output the runtime cannot pass on; do not repeat the same call, ask for less or continue without it."
	default:
		return "The tool failed unexpectedly; retry later or continue without it."
	}
}

// InvalidArguments rejects a call whose arguments the model must correct.
func InvalidArguments(format string, a ...any) *Error {
	return &Error{Kind: ErrorKindInvalidArguments, Message: sprintf(format, a)}
}

// ModelRetry asks the model to call the tool again, following msg.
func ModelRetry(format string, a ...any) *Error {
	return &Error{Kind: ErrorKindModelRetry, Message: sprintf(format, a)}
}

// Feedback returns agent-readable guidance for an expected condition (a
// missing file, an HTTP 404). It is not an error and spends no budget.
func Feedback(format string, a ...any) *Error {
	return &Error{Kind: ErrorKindFeedback, Message: sprintf(format, a)}
}

// UserError reports that the application used the tool incorrectly. It is
// never retried.
func UserError(format string, a ...any) *Error {
	return &Error{Kind: ErrorKindUserError, Message: sprintf(format, a)}
}

// InvalidOutput reports an output the runtime refused (see
// ErrorKindInvalidOutput). Tools do not return it; a Python host's
// malformed output becomes one.
func InvalidOutput(format string, a ...any) *Error {
	return &Error{Kind: ErrorKindInvalidOutput, Message: sprintf(format, a)}
}

// Cancelled reports a cancelled call.
func Cancelled(reason string) *Error { return &Error{Kind: ErrorKindCancelled, Message: reason} }

// Timeout reports a call that exceeded its timeout.
func Timeout(timeoutMS int64) *Error {
	return &Error{Kind: ErrorKindTimeout, TimeoutMS: timeoutMS, Message: fmt.Sprintf("exceeded %dms", timeoutMS)}
}

// ApprovalRequired pauses the run until a person approves the call.
func ApprovalRequired(reason string, metadata map[string]any) *Error {
	md := maps.Clone(metadata)
	if md == nil {
		md = map[string]any{}
	}
	if reason != "" {
		md["reason"] = reason
	}
	return &Error{Kind: ErrorKindApprovalRequired, Message: reasonOr(reason, "approval required"), Metadata: md}
}

// CallDeferred pauses the run until an external result is supplied.
func CallDeferred(reason string, metadata map[string]any) *Error {
	md := maps.Clone(metadata)
	if md == nil {
		md = map[string]any{}
	}
	if reason != "" {
		md["reason"] = reason
	}
	return &Error{Kind: ErrorKindCallDeferred, Message: reasonOr(reason, "call deferred"), Metadata: md}
}

// WithPrivateMetadata attaches host-only detail to err, converting it to an
// *Error (an execution failure when it is not one already, or when err is
// nil). The original error is not modified.
func WithPrivateMetadata(err error, md map[string]any) *Error {
	e := toError(err)
	c := *e
	c.PrivateMetadata = maps.Clone(e.PrivateMetadata)
	if c.PrivateMetadata == nil {
		c.PrivateMetadata = make(map[string]any, len(md))
	}
	maps.Copy(c.PrivateMetadata, md)
	return &c
}

// AsError returns err as an *Error; errors of other types become execution
// failures carrying their message. It returns nil for a nil err.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	return &Error{Kind: ErrorKindExecution, Message: err.Error(), Err: err}
}

// toError is AsError that never returns nil: a missing error is reported as
// an execution failure rather than a panic.
func toError(err error) *Error {
	if e := AsError(err); e != nil {
		return e
	}
	return &Error{Kind: ErrorKindExecution, Message: "tool failed without an error value"}
}

// KindOf returns the kind of err: execution for untyped errors, "" for nil.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e.Kind
	}
	return ErrorKindExecution
}

// isNil reports whether err is nil or a nil *Error stored in an error
// interface, which a tool returning a typed nil means as "no error".
func isNil(err error) bool {
	if err == nil {
		return true
	}
	e, ok := err.(*Error)
	return ok && e == nil
}

func sprintf(format string, a []any) string {
	if len(a) == 0 {
		return format
	}
	return fmt.Sprintf(format, a...)
}

func reasonOr(reason, def string) string {
	if reason == "" {
		return def
	}
	return reason
}
