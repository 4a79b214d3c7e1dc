package tool

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// Call is one tool call requested by the model.
type Call struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Index is the call's position among the calls of its response; it
	// derives the call's idempotency key (Context.IdempotencyKey).
	Index int `json:"index,omitempty"`
}

// Approval is the human decision attached to a re-executed call.
type Approval struct {
	// Status is "approved" or "denied".
	Status            string          `json:"status"`
	OverrideArguments json.RawMessage `json:"override_arguments,omitempty"`
	// Arguments are the call's arguments as the model sent them, so that a
	// user-input preprocessor can merge an edit into them (its override
	// replaces them whole).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

// Context is the per-call view of the run a tool executes in. The registry
// gives each call its own copy, so before-hooks may change it freely.
// Cancellation is carried by the context.Context passed beside it.
type Context struct {
	RunID          string
	ConversationID string
	RunStep        int
	ToolCallID     string
	ToolName       string
	// Retry counts earlier attempts: model corrections of this tool in the
	// run plus the internal attempt number.
	Retry int
	// MaxRetries is the effective budget of the tool.
	MaxRetries int
	// Approval is nil on a first call and set when a person decided on it.
	Approval *Approval
	// Metadata is free-form per-run metadata (read-only for tools).
	Metadata map[string]any
	// Deps holds typed and named dependencies. It is shared by concurrent
	// calls and must be treated as read-only during a run.
	Deps *Deps
	// CallIndex is the call's position among the calls of its response.
	CallIndex int
	// Artifacts is the run's artifact store, bound to the agent's scope;
	// nil when the agent has none (its methods then fail with
	// ErrNoArtifacts). Shared by concurrent calls.
	Artifacts *Artifacts
	// Agent is the session's agent context (the broad handle). The agent
	// sets it on the base context of a run's calls; a call receives it
	// only under the Legacy profile, Filtered and Strict calls get nil and
	// reach the context through Handles.
	Agent *agentctx.Context
	// Handles are the context capability handles the call was authorised
	// (see Dependencies.ContextCapabilities); unauthorised ones are nil.
	Handles agentctx.Handles
	// ShellEnv is the configured shell environment, when the call's
	// profile allows it: Legacy always, Filtered when the tool asks for it,
	// Strict when it asks and was granted it.
	ShellEnv map[string]string
	// Runtime is the call's read-only snapshot of the run's limits and,
	// for Legacy calls, the shell configuration (see RuntimeSnapshot). On
	// a run's base context only Runtime.Limits is read: the registry
	// derives the rest for each call.
	Runtime RuntimeSnapshot
	// Profile is the call's effective dependency profile ("" before the
	// registry derived the call's context).
	Profile Profile
	// HostCapabilities are the named dependencies the call may receive
	// when its profile is Filtered or Strict (declared, and for Strict
	// also granted), whether or not the run provides them; nil under
	// Legacy, which receives all. Hosts that keep dependencies of their
	// own (the Python package) narrow them by it.
	HostCapabilities []string
	// ContextCapabilities are the context capabilities the call was
	// authorised (those Handles holds).
	ContextCapabilities []string

	// reg and base are the registry running the call and the base context
	// it was derived from, for Dispatch (dispatch.go).
	reg  *Registry
	base *Context
	// keyPrefix, set on the children of a DispatchBatch, is their parent's
	// idempotency key plus "/child/": a child's key is it plus its index.
	keyPrefix string
	// completionKey is the key reserved for a call of a tool that may
	// defer (pending.go).
	completionKey string
}

// IdempotencyKey is the call's stable key, derived from the conversation,
// the run, the step and the call's position in the response (not the
// provider's call id): a re-run of the same call, in this process or
// after a crash, has the same key, so a tool can hand it to the service
// it writes to (an idempotent write is one that the service deduplicates
// by such a key).
//
// A child call of DispatchBatch has its parent's key followed by
// "/child/" and its own index (its CallIndex): ".../call/2/child/7".
func (c *Context) IdempotencyKey() string {
	if c.keyPrefix != "" {
		return c.keyPrefix + strconv.Itoa(c.CallIndex)
	}
	return effectclass.Key(c.ConversationID, c.RunID, c.RunStep, c.CallIndex)
}

// LastAttempt reports whether an execution failure now would exhaust the
// internal retry budget.
func (c *Context) LastAttempt() bool { return c.Retry >= c.MaxRetries }

// Deps holds the dependencies a host makes available to its tools, by type
// and by stable name. The zero value is empty and ready to use.
type Deps struct {
	typed map[reflect.Type]any
	named map[string]any
}

// Provide stores v as the dependency of type T.
func Provide[T any](d *Deps, v T) {
	if d.typed == nil {
		d.typed = map[reflect.Type]any{}
	}
	d.typed[reflect.TypeFor[T]()] = v
}

// Dependency returns the dependency of type T available to the call.
func Dependency[T any](c *Context) (T, bool) {
	var zero T
	if c == nil || c.Deps == nil {
		return zero, false
	}
	v, ok := c.Deps.typed[reflect.TypeFor[T]()]
	if !ok {
		return zero, false
	}
	t, ok := v.(T)
	return t, ok
}

// SetNamed stores v under a stable capability name.
func (d *Deps) SetNamed(name string, v any) {
	if d.named == nil {
		d.named = map[string]any{}
	}
	d.named[name] = v
}

// Named returns the dependency registered under name.
func (d *Deps) Named(name string) (any, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.named[name]
	return v, ok
}

// Names returns the names of the named dependencies, sorted.
func (d *Deps) Names() []string {
	if d == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(d.named))
}

// WithNamed returns a copy of d with the named dependencies of named
// added (replacing those of d under the same names); d is unchanged. It
// returns d itself when named is empty.
func (d *Deps) WithNamed(named map[string]any) *Deps {
	if len(named) == 0 {
		return d
	}
	out := &Deps{named: make(map[string]any, len(named))}
	if d != nil {
		out.typed = d.typed
		maps.Copy(out.named, d.named)
	}
	maps.Copy(out.named, named)
	return out
}

// only returns a copy holding just the named dependencies in names and no
// typed ones: the least-authority view given to strict tools.
func (d *Deps) only(names []string) *Deps {
	out := &Deps{}
	for _, n := range names {
		if v, ok := d.Named(n); ok {
			out.SetNamed(n, v)
		}
	}
	return out
}

// RunContext is what availability checks and definition preparation see:
// the run-level state, not one call's.
type RunContext struct {
	RunID          string
	ConversationID string
	RunStep        int
	Metadata       map[string]any
	// ActiveTags are the capability tags active in the run; a tool whose
	// hidden_by_tags contains one of them is hidden.
	ActiveTags []string
	Deps       *Deps
	// Agent is the session's agent context, for checks that depend on it
	// (tool-search loaded state, say); nil outside a session.
	Agent *agentctx.Context
	// Ctx is the run's context, for availability checks and preparations
	// that wait (on a host process, say): they must give up when it ends.
	// It is nil when definitions are prepared outside a run (when an agent
	// is built or restored), where such checks keep their definition.
	Ctx context.Context
}

// filtered returns a copy with every typed dependency but only the named
// dependencies in names.
func (d *Deps) filtered(names []string) *Deps {
	out := d.only(names)
	if d != nil {
		out.typed = d.typed
	}
	return out
}
