package tool

import (
	"encoding/json"
	"errors"
	"maps"
)

// PendingCompletion says how a pending attempt's result completes: the
// fields of core/intent's Completion, as its journal writes them.
type PendingCompletion struct {
	// DeadlineMS, when positive, is the Unix time in milliseconds by
	// which the result must arrive.
	DeadlineMS int64 `json:"deadline_ms,omitempty"`
	// OnTimeout is what a missed deadline does: "error_as_result" (the
	// default) or "fail_turn".
	OnTimeout string `json:"on_timeout,omitempty"`
	// OnCancel is what cancelling the waiting call asks of the external
	// work: "ignore" (the default) or "cancel_external_work".
	OnCancel string `json:"on_cancel,omitempty"`
}

func (c PendingCompletion) check() error {
	switch c.OnTimeout {
	case "", "error_as_result", "fail_turn":
	default:
		return UserError("the pending attempt's on_timeout %q is not error_as_result or fail_turn", c.OnTimeout)
	}
	switch c.OnCancel {
	case "", "ignore", "cancel_external_work":
	default:
		return UserError("the pending attempt's on_cancel %q is not ignore or cancel_external_work", c.OnCancel)
	}
	if c.DeadlineMS < 0 {
		return UserError("the pending attempt's deadline_ms %d is negative", c.DeadlineMS)
	}
	return nil
}

// Pending ends an attempt whose result arrives later, from outside the
// run: the call pauses as a deferred call (call_deferred) whose request
// carries the completion (under MetaPending) and the completion key the
// runtime reserved for it (MetaCompletionKey, the tool's
// Context.CompletionKey), and the host completes it with that key (or
// the call id) when the result is there.
//
// Only a tool that declares it may defer (Config.AttemptMayDefer,
// Function.WithAttemptMayDefer) may return Pending: from any other the
// call fails with a user_error saying so. A pending attempt carries no
// intents (a Result's intents returned with it make the call fail), since
// intents are realised only with a committed result: core/intent's
// AttemptOutcome makes the pair impossible to write down.
//
// CallDeferred is the other deferral: a tool that asks a person or a
// client for its result, with no completion key.
func Pending(reason string, c PendingCompletion) *Error {
	e := CallDeferred(reasonOr(reason, "pending: the result arrives later"), nil)
	e.Metadata[MetaPending] = c
	return e
}

// IsPending reports whether err is an attempt's Pending.
func IsPending(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e == nil || e.Kind != ErrorKindCallDeferred {
		return false
	}
	_, ok := e.Metadata[MetaPending]
	return ok
}

// PendingOf returns the completion of a pending attempt's request (a
// deferral's Return.Runtime.Request), and whether it is one.
func PendingOf(request map[string]any) (PendingCompletion, bool) {
	v, ok := request[MetaPending]
	if !ok {
		return PendingCompletion{}, false
	}
	if c, ok := v.(PendingCompletion); ok {
		return c, true
	}
	var c PendingCompletion
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	return c, err == nil
}

// WithAttemptMayDefer declares that the tool's attempts may end Pending:
// only such a tool gets a completion key (Context.CompletionKey). Declare
// it only when the tool can actually return Pending.
func (f *Function) WithAttemptMayDefer(on bool) *Function {
	f.cfg.AttemptMayDefer = on
	return f
}

// CompletionKeyFunc derives the completion key of the call tc describes
// (core/agent derives it from the session, the turn and the call id with
// core/intent's DeriveCompletionKey); "" means none.
type CompletionKeyFunc func(tc *Context) string

// SetCompletionKeys makes the registry reserve a completion key for every
// call of a tool that declares AttemptMayDefer, through f (nil: none are
// reserved, and a Pending call is completed by its call id only). Like
// every setting it must not change while calls run.
func (r *Registry) SetCompletionKeys(f CompletionKeyFunc) { r.completionKeys = f }

// CompletionKey returns the completion key reserved for the call, "" for
// a tool that does not declare AttemptMayDefer (or a registry that
// reserves none). A tool hands it to whatever completes the result
// later; it is the same in every attempt, replay and recovery of the call.
func (c *Context) CompletionKey() string { return c.completionKey }

// checkPending is the rule on a Pending attempt, applied once the
// after-hooks ran: only a tool that declares it may defer returns
// Pending, with a completion the runtime knows; its request then names
// the reserved completion key.
func (c *callRun) checkPending(err error) error {
	if !IsPending(err) {
		return err
	}
	if !c.e.cfg.AttemptMayDefer {
		return UserError("tool %q returned Pending but does not declare attempt_may_defer: declare it "+
			"(Go: WithAttemptMayDefer(true); Python: @tool(attempt_may_defer=True)) or raise CallDeferred", c.call.Name)
	}
	var e *Error
	errors.As(err, &e)
	comp, ok := PendingOf(e.Metadata)
	if !ok {
		return UserError("tool %q returned a Pending whose completion cannot be read", c.call.Name)
	}
	if cerr := comp.check(); cerr != nil {
		return cerr
	}
	out := *e
	out.Metadata = maps.Clone(e.Metadata)
	out.Metadata[MetaPending] = comp
	if c.tc.completionKey != "" {
		out.Metadata[MetaCompletionKey] = c.tc.completionKey
	}
	return &out
}
