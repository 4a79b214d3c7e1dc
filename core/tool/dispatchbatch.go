package tool

import (
	"context"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// DispatchOptions control DispatchBatch.
type DispatchOptions struct {
	// Sequential forces the calls to run one at a time, in order.
	Sequential bool
	// MaxConcurrency caps concurrent calls; zero means no cap.
	MaxConcurrency int
	// Approvals, when set, holds one approval per call (a nil entry: none),
	// given to the call as Context.Approval: a child that asked for
	// approval, run again once a person approved its parent.
	Approvals []*Approval
}

// DispatchBatch runs calls through the registry running the current call,
// as children of it, and returns their Returns in the calls' order. It is
// Dispatch for several calls at once, scheduled by ExecuteBatch's rules: in
// parallel unless SequentialReason (or opts) says otherwise. Each child
// goes through the whole call pipeline (arguments checked against the
// schema, hooks, validators, the tool's timeout, internal retries, the
// effect journal, approval and deferral).
//
// Unlike Dispatch, only listed tools can be reached (see Offers): a child
// naming an unlisted or unknown tool is not_found.
//
// Each child gets the context a model's call of its tool would get,
// derived from the run's base context, without the parent's approval
// (opts.Approvals gives its own) and without the parent's retry count. A
// child's Call.Index is its position among its parent's children: it is
// the child's CallIndex, and its idempotency key is the parent's followed
// by "/child/" and that index, so children are journaled apart from each
// other and from their parent, and a parent run again (after an approval,
// or when a turn is recovered) finds its children's records again.
//
// A Context that no registry prepared returns a user_error for every call.
func (c *Context) DispatchBatch(ctx context.Context, calls []Call, opts DispatchOptions) []Return {
	if c == nil || c.reg == nil {
		out := make([]Return, len(calls))
		for i, call := range calls {
			out[i] = ErrorReturn(call, UserError("tool %q cannot be dispatched outside a registry call", call.Name))
		}
		return out
	}
	if ctx == nil {
		ctx = context.Background()
	}
	prefix := c.IdempotencyKey() + "/child/"
	bases := make([]*Context, len(calls))
	for i := range calls {
		b := &Context{}
		if c.base != nil {
			*b = *c.base
		}
		b.Approval, b.Retry, b.keyPrefix = nil, 0, prefix
		if i < len(opts.Approvals) {
			b.Approval = opts.Approvals[i]
		}
		bases[i] = b
	}
	return c.reg.ExecuteBatch(ctx, nil, calls, BatchOptions{Sequential: opts.Sequential, MaxConcurrency: opts.MaxConcurrency, Bases: bases})
}

// Offers reports whether the registry running the current call holds a
// listed tool named name: one a model's call (or DispatchBatch) can reach.
// A Context that no registry prepared offers nothing.
func (c *Context) Offers(name string) bool {
	if c == nil || c.reg == nil {
		return false
	}
	_, ok := c.reg.entries[name]
	return ok
}

// RepeatSafe reports whether running a call of the named tool a second
// time cannot repeat an effect: the tool is pure or read-only, or its
// calls go through the registry's effect journal, which replays a call it
// recorded instead of running it again. A tool the registry does not
// hold is not repeat-safe.
func (c *Context) RepeatSafe(name string) bool {
	if c == nil || c.reg == nil {
		return false
	}
	e, ok := c.reg.entries[name]
	return ok && (effectclass.ParallelSafe(c.reg.effectOf(e)) || c.reg.journals(e))
}
