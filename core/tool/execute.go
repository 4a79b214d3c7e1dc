package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"sync"
)

// Execute runs one call end to end and always returns its Return: unknown
// names, invalid JSON, schema mismatches, hook and validator rejections,
// panics, timeouts and cancellation all become typed error returns. base
// supplies the run-level fields of the tool context; it is not modified.
//
// Execute starts the call as a parallel batch does and waits for it, so
// both follow the same rules: a Starter is started, any other tool is
// called.
//
// Arguments are decoded with json.Number for numbers, so hooks and
// validators see numbers exactly as the model wrote them, and arguments
// re-encoded after a hook or validator changed them keep their precision.
func (r *Registry) Execute(ctx context.Context, base *Context, call Call) Return {
	if ctx == nil {
		ctx = context.Background()
	}
	w := &waited{}
	w.wg.Add(1)
	r.startRun(&w.c, ctx, base, call, &w.ret, &w.wg, true)
	w.wg.Wait()
	return w.ret
}

// waited is a call Execute waits for: one allocation for the call's state,
// its Return and the wait.
type waited struct {
	c   callRun
	ret Return
	wg  sync.WaitGroup
}

func notFound(name string) *Error {
	return &Error{Kind: ErrorKindNotFound, Tool: name, Message: fmt.Sprintf("tool %q is not registered for this run", name)}
}

// failedReturn is the Return of a call that failed with err; attempt is the
// number of its last attempt, -1 when none ran. Exhausted unexpected
// failures carry their retry counts.
func failedReturn(call Call, err error, attempt, maxRetries int) Return {
	ret := ErrorReturn(call, err)
	if attempt >= 0 && FlagsOf(KindOf(err)).Unexpected {
		ret.Metadata[MetaToolRetry] = attempt
		ret.Metadata[MetaMaxRetries] = maxRetries
		ret.Content.(map[string]any)[MetaToolRetry] = attempt
		ret.Content.(map[string]any)[MetaMaxRetries] = maxRetries
	}
	return ret
}

// listedContext is the run context a call's Listed check sees, from the
// run-level fields of its base context.
func listedContext(base *Context) *RunContext {
	if base == nil {
		return &RunContext{}
	}
	return &RunContext{RunID: base.RunID, ConversationID: base.ConversationID, RunStep: base.RunStep, Metadata: base.Metadata,
		Deps: base.Deps, Agent: base.Agent}
}

// CallContext returns the context a call of the named tool receives,
// derived from base with the authority the tool's dependency profile
// allows: what execution gives the tool, for code that calls a tool's
// other entry points itself (its user-input preprocessor, say).
func (r *Registry) CallContext(base *Context, call Call) *Context {
	tc := &Context{}
	if e, ok := r.entries[call.Name]; ok {
		r.callContext(tc, e, base, call)
		return tc
	}
	if base != nil {
		*tc = *base
	}
	tc.ToolCallID, tc.ToolName, tc.CallIndex = call.ID, call.Name, call.Index
	tc.Agent, tc.ShellEnv = nil, nil
	tc.Runtime.ShellEnvironment = nil
	tc.Deps = tc.Deps.only(nil)
	return tc
}

// callContext sets tc to the call's own context, derived from base with
// the authority the tool's profile allows (seed 000, "Tools with context
// dependencies"):
//   - Legacy: every dependency, the broad agent context, the shell
//     environment, and the handles of the context capabilities it declares.
//   - Filtered: typed dependencies and the named ones it declares, the
//     declared context handles, the shell environment only if declared.
//   - Strict: only what it declares and its grant (installed in the agent
//     context under the tool's name) allows; nothing without a grant.
func (r *Registry) callContext(tc *Context, e *entry, base *Context, call Call) {
	*tc = Context{}
	if base != nil {
		*tc = *base
	}
	tc.ToolCallID = call.ID
	tc.ToolName = call.Name
	tc.CallIndex = call.Index
	tc.MaxRetries = r.maxRetriesOf(e)
	tc.reg, tc.base = r, base
	tc.completionKey = ""
	if e.cfg.AttemptMayDefer && r.completionKeys != nil {
		tc.completionKey = r.completionKeys(tc)
	}
	agent := tc.Agent
	tc.Profile = e.deps.Profile
	tc.ShellEnv, tc.HostCapabilities, tc.ContextCapabilities, tc.Handles = nil, nil, nil, agentctx.Handles{}
	switch e.deps.Profile {
	case ProfileStrict:
		tc.Agent = nil
		grant, _ := agent.ToolCapabilityGrant(call.Name)
		tc.HostCapabilities = intersect(e.deps.HostCapabilities, grant.HostCapabilities)
		tc.Deps = tc.Deps.only(tc.HostCapabilities)
		tc.ContextCapabilities = intersect(known(e.contextCaps()), grant.ContextCapabilities)
		if e.deps.ShellEnvironment && grant.ShellEnvironment {
			tc.ShellEnv = agent.ShellEnvironment()
		}
	case ProfileFiltered:
		tc.Agent = nil
		tc.HostCapabilities = slices.Clip(e.deps.HostCapabilities)
		tc.Deps = tc.Deps.filtered(tc.HostCapabilities)
		tc.ContextCapabilities = known(e.contextCaps())
		if e.deps.ShellEnvironment {
			tc.ShellEnv = agent.ShellEnvironment()
		}
	default:
		tc.ContextCapabilities = known(e.contextCaps())
		tc.ShellEnv = agent.ShellEnvironment()
	}
	var limits RunLimits
	if base != nil {
		limits = base.Runtime.Limits
	}
	tc.Runtime = r.runtimeSnapshot(e, limits, tc.MaxRetries, tc.ShellEnv, e.deps.Profile != ProfileStrict && e.deps.Profile != ProfileFiltered)
	if len(tc.ContextCapabilities) > 0 {
		tc.Handles = agent.HandlesFor(tc.ContextCapabilities)
	}
}

// contextCaps are the context capabilities the tool asks for, in its
// dependency metadata or its Config.
func (e *entry) contextCaps() []string {
	if len(e.cfg.Capabilities) == 0 {
		return e.deps.ContextCapabilities
	}
	return append(slices.Clip(e.deps.ContextCapabilities), e.cfg.Capabilities...)
}

// known returns the context capabilities among names (unknown names are
// ignored), without copying when all are known.
func known(names []string) []string {
	for i, n := range names {
		if !agentctx.KnownCapability(n) {
			out := slices.Clone(names[:i])
			for _, m := range names[i+1:] {
				if agentctx.KnownCapability(m) {
					out = append(out, m)
				}
			}
			return out
		}
	}
	return slices.Clip(names)
}

// intersect returns the names of want that also appear in allowed.
func intersect(want, allowed []string) []string {
	var out []string
	for _, n := range want {
		if slices.Contains(allowed, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// safeCall turns a panicking tool into an execution error whose stack stays
// in private metadata.
// A typed nil *Error returned as the error means success.
func safeCall(ctx context.Context, t Tool, tc *Context, args json.RawMessage) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, panicError(panickedTool, p)
		}
	}()
	res, err = t.Call(ctx, tc, args)
	if isNil(err) {
		err = nil
	}
	return res, err
}

// panicError is the execution error of a recovered panic; the stack goes
// to private metadata only.
func panicError(what string, p any) *Error {
	return &Error{
		Kind:    ErrorKindExecution,
		Message: fmt.Sprintf("%s panicked: %v", what, p),
		PrivateMetadata: map[string]any{
			"panic": fmt.Sprint(p),
			"stack": string(debug.Stack()),
		},
	}
}
