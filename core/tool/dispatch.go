package tool

import "context"

// Dispatch runs call through the registry running the current call, the
// way that registry runs a model's call: arguments are checked against the
// schema, hooks and validators run, the tool's timeout, internal retries,
// effect journal, approval and deferral apply. The call may name a listed
// tool or an unlisted one (see Unlisted). It is how a tool that stands
// for others (a proxy's call_tool) calls them without going around the
// runtime.
//
// The dispatched call derives its context from the run's base context,
// with the authority its own dependency profile allows (not the
// dispatcher's), and carries c.Approval: a dispatcher re-run after an
// approval passes the decision on to the tool that asked for it. Give the
// call the dispatcher's ID (c.ToolCallID) and index so that its
// idempotency key is the dispatcher's.
//
// The returned Return is the dispatched call's, never nil-valued: an
// unknown name is not_found. A Context that no registry prepared (a tool
// called directly, in a test) has nothing to dispatch to and returns a
// user_error.
func (c *Context) Dispatch(ctx context.Context, call Call) Return {
	if c == nil || c.reg == nil {
		return ErrorReturn(call, UserError("tool %q cannot be dispatched outside a registry call", call.Name))
	}
	r := c.reg
	e, ok := r.entries[call.Name]
	if !ok {
		if e, ok = r.unlisted[call.Name]; !ok {
			return ErrorReturn(call, r.missing(call.Name))
		}
	}
	base := &Context{}
	if c.base != nil {
		*base = *c.base
	}
	base.Approval = c.Approval
	if ctx == nil {
		ctx = context.Background()
	}
	w := &waited{}
	w.wg.Add(1)
	w.c.dispatched = true
	r.startEntry(&w.c, e, ctx, base, call, &w.ret, &w.wg, true)
	w.wg.Wait()
	return w.ret
}
