package agent

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/session"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/intent"
)

// UnavailablePolicy says what a run does with tools that are registered but
// unavailable in its context.
type UnavailablePolicy int

const (
	// SkipUnavailable omits them from the request and reports them in a
	// tools_unavailable event. It is the default.
	SkipUnavailable UnavailablePolicy = iota
	// FailOnUnavailable reports them, then fails the run before the model
	// request is sent.
	FailOnUnavailable
)

// Agent is a reusable pairing of a model with tools and policies. It is
// immutable once built and safe for concurrent runs.
type Agent struct {
	model        model.Model
	name         string
	systemPrompt string
	instructions []string
	tools        []tool.Tool
	// capabilityGrants are the per-tool grants every session starts with
	// (see Builder.GrantToolCapabilities).
	capabilityGrants map[string]agentctx.Grant
	toolsets         []toolset.Toolset
	registries       []*tool.Registry
	hooks            []tool.Hook
	maxRetries       *int
	timeout          time.Duration
	// defaultEffect is the effect class of tools that declare none.
	defaultEffect  effect.Class
	sequential     bool
	maxConcurrency int
	// noEager turns eager dispatch off (see Builder.EagerDispatch).
	noEager bool
	// historyProcessors rewrite each request's messages (historyproc.go).
	historyProcessors []HistoryProcessor
	unavailable       UnavailablePolicy
	limits            UsageLimits
	settings          model.Settings
	outputSpec        *OutputSpec
	outputRetries     *int
	// output is the compiled outputSpec (nil for text runs).
	output     *output
	deps       *tool.Deps
	metadata   map[string]any
	activeTags []string
	stateKey   []byte
	// sessions keeps sessions by id (see Builder.SessionStore).
	sessions session.Store
	// journal journals the calls that may change the world (see
	// Builder.EffectJournal); nil for none.
	journal *effect.Journal
	// intents realises the intents tools declare (see Builder.Intents);
	// nil for none.
	intents *intent.Realiser
	// approvalSelectors gate matching tools behind approval.
	approvalSelectors []string
	// artifacts is the agent's artifact store bound to its scope (nil for
	// none); resolveLimit bounds an artifact read into a request (0: the
	// resolver's default); maxOutput bounds one call's output (0: the
	// registry's default); budget decides what is spilled (artifacts.go).
	artifacts    *tool.Artifacts
	resolveLimit int64
	maxOutput    int
	budget       OutputBudget
	// schemas spares runs from recompiling the same parameter schemas.
	schemas *tool.SchemaCache
	// toolErrorPolicy decides whether a failed call ends a run.
	toolErrorPolicy ToolErrorPolicy
	// base holds what every run registers the same way (the agent's tools
	// and registries), so runs clone it instead of registering again; nil
	// when an approval policy must wrap the agent's tools per run.
	base *tool.Registry
	// environment is every session's default environment provider (see
	// Builder.Environment); nil for none.
	environment env.Provider
	// managed marks the toolsets the runner enters and reads itself (see
	// managedSets); nil when none is.
	managed []bool
	// batchTool adds the native batch tool (see Builder.BatchTool).
	batchTool bool
	// routes are the names of the subagents spawn_agent starts.
	routes []string
	// handoffs are the agents the model may transfer the run to, with
	// their transfer tools (handoff.go).
	handoffs []*handoff
	// plugins are installed after the agent's toolsets (plugin.go).
	plugins []PluginFactory
	// projection materialises projected argument values (nil: none).
	projection tool.ProjectionResolver
	// destructive and decider are the policy of destructive calls (see
	// Builder.DestructivePolicy).
	destructive tool.DestructivePolicy
	decider     tool.DestructiveDecider
}

// Builder assembles an Agent one setting at a time: each method sets a
// field of its Options (see Options), and Build is New over them. A
// method given a value out of range records the error, which Build
// reports (the first one made). A Builder must not be used concurrently.
type Builder struct {
	m    model.Model
	opts Options
	// err is the first invalid setting, reported by Build.
	err error
}

// NewBuilder starts an agent answering with m.
func NewBuilder(m model.Model) *Builder {
	return &Builder{m: m}
}

// NewBuilderFrom starts an agent answering with m from the settings of o;
// the Builder's methods then change them as they change a new Builder's
// (Instructions adds to o.Instructions, Name replaces o.Name). The Builder
// keeps copies of o's slices and maps. Build reports o's first setting out
// of range (see New) before any error of a later method.
func NewBuilderFrom(m model.Model, o Options) *Builder {
	o.Instructions = slices.Clone(o.Instructions)
	o.Tools = slices.Clone(o.Tools)
	o.ToolCapabilityGrants = maps.Clone(o.ToolCapabilityGrants)
	o.Toolsets = slices.Clone(o.Toolsets)
	o.Registries = slices.Clone(o.Registries)
	o.Hooks = slices.Clone(o.Hooks)
	o.Metadata = maps.Clone(o.Metadata)
	o.ActiveTags = slices.Clone(o.ActiveTags)
	o.ApprovalRequiredTools = slices.Clone(o.ApprovalRequiredTools)
	o.StateKey = slices.Clone(o.StateKey)
	o.Handoffs = slices.Clone(o.Handoffs)
	o.Plugins = slices.Clone(o.Plugins)
	b := &Builder{m: m, opts: o}
	b.err = b.opts.check()
	return b
}

// Name names the agent.
func (b *Builder) Name(name string) *Builder { b.opts.Name = name; return b }

// SystemPrompt sets the system prompt sent at the start of a conversation.
func (b *Builder) SystemPrompt(s string) *Builder { b.opts.SystemPrompt = s; return b }

// Instructions adds instructions, sent with every request.
func (b *Builder) Instructions(s ...string) *Builder {
	b.opts.Instructions = append(b.opts.Instructions, s...)
	return b
}

// Tool registers tools.
func (b *Builder) Tool(t ...tool.Tool) *Builder { b.opts.Tools = append(b.opts.Tools, t...); return b }

// GrantToolCapabilities grants the named tool authority in every session
// of the agent: the only authority a Strict tool receives is what it
// declares intersected with its grant (see package agentctx). A session's
// own grant (Session.Context().GrantToolCapabilities) replaces it.
func (b *Builder) GrantToolCapabilities(name string, g agentctx.Grant) *Builder {
	if b.opts.ToolCapabilityGrants == nil {
		b.opts.ToolCapabilityGrants = map[string]agentctx.Grant{}
	}
	b.opts.ToolCapabilityGrants[name] = g
	return b
}

// Toolset registers toolsets.
func (b *Builder) Toolset(ts ...toolset.Toolset) *Builder {
	b.opts.Toolsets = append(b.opts.Toolsets, ts...)
	return b
}

// Registry registers every tool of r (with its toolset defaults and hooks).
func (b *Builder) Registry(r *tool.Registry) *Builder {
	b.opts.Registries = append(b.opts.Registries, r)
	return b
}

// Hook adds a global execution hook.
func (b *Builder) Hook(h tool.Hook) *Builder { b.opts.Hooks = append(b.opts.Hooks, h); return b }

// MaxRetries sets the agent-wide retry budget (below tools and toolsets).
// Calls of tool names that do not exist for the run spend it too, counted
// per name, so a model repeating an unknown name fails the run quickly.
// A negative n makes Build report ErrConfig (see [tool.CheckMaxRetries]).
func (b *Builder) MaxRetries(n int) *Builder {
	if err := checkMaxRetries(n); err != nil {
		b.fail(err)
		return b
	}
	b.opts.MaxRetries = &n
	return b
}

// Timeout sets the agent-wide tool timeout (below tools and toolsets). A
// timeout that is not positive makes Build report ErrConfig (see
// [tool.CheckTimeout]); an agent that sets none gives tools no timeout.
func (b *Builder) Timeout(d time.Duration) *Builder {
	if err := checkTimeout(d); err != nil {
		b.fail(err)
		return b
	}
	b.opts.Timeout = d
	return b
}

// DefaultEffect sets the effect class of tools that declare none. Left
// undeclared, such tools keep the seeds' rule: an unexpected failure is
// re-run within the retry budget, whatever the tool does. An agent whose
// tools write to the world can say effect.ClassUnknown here, so that
// undeclared tools fail closed (never re-run after a failure that may have
// taken effect) and only tools declared safe are re-run. An unknown class
// makes Build report ErrConfig.
func (b *Builder) DefaultEffect(c effect.Class) *Builder {
	if err := checkDefaultEffect(c); err != nil {
		b.fail(err)
		return b
	}
	b.opts.DefaultEffect = c
	return b
}

// DestructivePolicy says what calls of destructive tools (effect class
// "destructive", declared with the tool or through DefaultEffect) do
// before they run: tool.DestructiveApprove (the default) pauses each for a
// person's approval, as ApprovalRequiredTools does, and runs it once
// approved; tool.DestructiveAllow runs them; tool.DestructiveDeny never
// runs them and gives the model an approval_denied return. decider, when
// not nil, decides per call (returning "" applies p). The policy applies
// to batch children and to runs of restored sessions alike. An unknown
// policy makes Build report ErrConfig.
func (b *Builder) DestructivePolicy(p tool.DestructivePolicy, decider tool.DestructiveDecider) *Builder {
	if err := tool.CheckDestructivePolicy(p); err != nil {
		b.fail(fmt.Errorf("%w: %w", ErrConfig, err))
		return b
	}
	b.opts.DestructivePolicy, b.opts.DestructiveDecider = p, decider
	return b
}

// ProjectionResolver makes the agent's calls normalise projected values
// ({"__projection_ref__": ref} objects a host wrote into what the model
// sees) through x before their hooks and schema validation: each tool's
// ArgumentProjectionPolicy says which are materialised (all of them, by
// default) and which keep their wrappers (tool.PreserveProjectedRefsInField).
// nil leaves arguments as the model wrote them.
func (b *Builder) ProjectionResolver(x tool.ProjectionResolver) *Builder {
	b.opts.ProjectionResolver = x
	return b
}

// destructivePolicy is the agent's destructive policy, defaulted.
func (a *Agent) destructivePolicy() tool.DestructivePolicy {
	if a.destructive == "" {
		return tool.DestructiveApprove
	}
	return a.destructive
}

// fail keeps the first building error.
func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Sequential makes every batch run in model order.
func (b *Builder) Sequential(seq bool) *Builder { b.opts.Sequential = seq; return b }

// MaxConcurrency caps concurrent tool calls per batch (0: no cap).
func (b *Builder) MaxConcurrency(n int) *Builder { b.opts.MaxConcurrency = n; return b }

// EagerDispatch says whether calls start while the response that makes
// them still streams (on by default). With a model that is a
// [model.Streamer], a call starts once the model reports it complete, when
// the batch rules would run it in parallel right away: a known, available
// tool that is not sequential, asks for no mutable context capability and
// is not gated behind approval, whose name no earlier call of the response
// used, and every earlier call of the response started too. The other
// calls wait for the response, as without eager dispatch. Agents that run
// batches in model order (Sequential), cap concurrency or ask for output
// through a tool never dispatch eagerly.
func (b *Builder) EagerDispatch(on bool) *Builder { b.opts.DisableEagerDispatch = !on; return b }

// UnavailableTools sets the policy for unavailable tools.
func (b *Builder) UnavailableTools(p UnavailablePolicy) *Builder {
	b.opts.UnavailableTools = p
	return b
}

// MaxSteps bounds the model requests of one run: it sets the request limit
// of the agent's usage limits (DefaultRequestLimit when unset). n must be
// positive; Build reports ErrInvalidLimit otherwise.
func (b *Builder) MaxSteps(n int) *Builder {
	if err := checkMaxSteps(n); err != nil {
		b.fail(err)
		return b
	}
	b.opts.UsageLimits.RequestLimit = n
	return b
}

// UsageLimits sets the agent's usage limits; the fields set in l replace
// the agent's (an unset field keeps its value), and run options
// (WithUsageLimits) override them per run. Build reports a negative field
// as ErrInvalidLimit.
func (b *Builder) UsageLimits(l UsageLimits) *Builder {
	if err := l.check(); err != nil {
		b.fail(err)
	}
	b.opts.UsageLimits = b.opts.UsageLimits.over(l)
	return b
}

// Handoffs adds agents the model may transfer the run to (see Handoff).
func (b *Builder) Handoffs(h ...Handoff) *Builder {
	b.opts.Handoffs = append(b.opts.Handoffs, h...)
	return b
}

// HandoffTo is a Handoff to a with the defaults (tool
// transfer_to_<a's name>, no filter, no callback).
func HandoffTo(a *Agent) Handoff { return Handoff{Agent: a} }

// Deps sets the dependencies tools receive.
func (b *Builder) Deps(d *tool.Deps) *Builder { b.opts.Deps = d; return b }

// Metadata sets run metadata visible to availability checks and tools.
func (b *Builder) Metadata(md map[string]any) *Builder { b.opts.Metadata = maps.Clone(md); return b }

// ActiveTags sets the capability tags active in runs (see hidden_by_tags).
func (b *Builder) ActiveTags(tags ...string) *Builder {
	b.opts.ActiveTags = append(b.opts.ActiveTags, tags...)
	return b
}

// ApprovalRequiredTools gates tools behind a person's approval without
// touching their code. A selector matches a tool name, a toolset name or
// id, a metadata "bundle", or "*" for everything. Tools the agent holds
// directly belong to a toolset named "agent". The policy applies to runs
// of restored sessions too, since it is the current agent's.
func (b *Builder) ApprovalRequiredTools(selectors ...string) *Builder {
	b.opts.ApprovalRequiredTools = append(b.opts.ApprovalRequiredTools, selectors...)
	return b
}

// StateKey signs exported session state with HMAC-SHA256 under key, so
// that state modified outside the process is refused on restore. Without a
// key the state carries a plain SHA-256 digest, which catches accidental
// edits but not deliberate ones, so SessionFromState refuses it unless
// given AllowUnsigned. An empty key is a mistake (a key read from an unset
// variable, say), not a way to ask for unsigned state: Build reports it as
// ErrConfig. Leave StateKey out to export unsigned state.
func (b *Builder) StateKey(key []byte) *Builder {
	if err := checkStateKey(key); err != nil {
		b.fail(err)
		return b
	}
	b.opts.StateKey = append([]byte(nil), key...)
	return b
}

// SessionStore keeps the agent's sessions in st, so they outlive the
// process and workers sharing st can continue each other's sessions:
// OpenSession loads a session by id, every run saves the session when it
// ends, and resuming a waiting run claims it in st first, so it is
// resumed at most once across processes. Without a store sessions live in
// memory only. Give workers sharing st the same StateKey: the stored state
// is what ExportState produces, verified like SessionFromState's.
//
// Before a run executes a batch of tool calls, it saves the session with
// the run marked in flight, naming the calls; the run's end replaces that
// save. A worker that stops while the calls run thus leaves a session
// that reports the run (Session.InFlight) and refuses to run until it is
// settled (Session.AbandonInFlight, or Session.Recover with an
// EffectJournal). Such an agent does not dispatch calls eagerly (see
// EagerDispatch): a call starts only once its response is saved.
func (b *Builder) SessionStore(st session.Store) *Builder { b.opts.SessionStore = st; return b }

// Build checks the configuration (a model is set, every setting is in
// range, tool names are unique, schemas are well formed) and returns the
// agent: it is New over the Builder's Options.
func (b *Builder) Build() (*Agent, error) {
	if b.m != nil && b.err != nil {
		return nil, b.err
	}
	return New(b.m, b.opts)
}

// MustBuild is Build for static configurations in tests and examples; it
// panics on error.
func (b *Builder) MustBuild() *Agent {
	a, err := b.Build()
	if err != nil {
		panic(err)
	}
	return a
}

// Model returns the agent's model.
func (a *Agent) Model() model.Model { return a.model }

// Name returns the agent's name.
func (a *Agent) Name() string { return a.name }

// baseRegistry registers the agent-wide settings, hooks, registries and
// tools.
func (a *Agent) baseRegistry(tools []tool.Tool) (*tool.Registry, error) {
	r := &tool.Registry{}
	r.SetSchemaCache(a.schemas)
	if a.maxRetries != nil {
		r.SetMaxRetries(*a.maxRetries)
	}
	r.SetTimeout(a.timeout)
	_ = r.SetDefaultEffect(a.defaultEffect)                      // checked by the Builder
	_ = r.SetDestructivePolicy(a.destructivePolicy(), a.decider) // checked by New
	r.SetProjectionResolver(a.projection)
	r.SetCompletionKeys(completionKey)
	r.SetMaxOutputBytes(a.maxOutput)
	if a.journal != nil {
		r.SetJournal(a.journal)
	}
	if a.intents != nil {
		r.SetIntents(callIntents{a.intents})
	}
	for _, h := range a.hooks {
		r.AddHook(h)
	}
	for _, reg := range a.registries {
		if err := r.Merge(reg); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if err := r.Add(tools...); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// Transfer tools are never gated behind approval: they change nothing
	// outside the run.
	if err := r.Add(a.handoffTools()...); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return r, nil
}

// runToolsets returns the toolsets of a run in order (the agent's, then
// the run's) and which of them are managed (nil when none is, see
// managedMask).
func (a *Agent) runToolsets(o *runOptions) ([]toolset.Toolset, []bool) {
	if o == nil || len(o.toolsets) == 0 {
		return a.toolsets, a.managed
	}
	sets := append(append([]toolset.Toolset(nil), a.toolsets...), o.toolsets...)
	return sets, managedMask(sets)
}

// registry builds the registry of one run: agent tools, registries and
// toolsets, then the run's own. The managed toolsets (see managedSets) are
// left out: registry returns them, approval-gated when the agent says so,
// with their positions in the run's toolsets, for the runner to enter and
// read at its steps.
func (a *Agent) registry(rc *tool.RunContext, o *runOptions) (*tool.Registry, []toolset.Toolset, []int, error) {
	var tools []tool.Tool
	sets, mask := a.runToolsets(o)
	if o != nil {
		tools = o.tools
	}
	var managed []toolset.Toolset
	var at []int
	if mask != nil {
		static := make([]toolset.Toolset, 0, len(sets))
		for i, ts := range sets {
			if mask[i] {
				managed = append(managed, ts)
				at = append(at, i)
				continue
			}
			static = append(static, ts)
		}
		sets = static
	}
	var r *tool.Registry
	if a.base != nil {
		r = a.base.Clone()
	} else {
		// An approval policy wraps the agent's tools, per run, in a toolset.
		base, err := a.baseRegistry(nil)
		if err != nil {
			return nil, nil, nil, err
		}
		r = base
		gated := make([]toolset.Toolset, 0, len(sets)+1)
		if len(a.tools) > 0 {
			gated = append(gated, toolset.ApprovalRequired(toolset.New("agent", a.tools...), a.approvalSelectors...))
		}
		for _, ts := range sets {
			gated = append(gated, toolset.ApprovalRequired(ts, a.approvalSelectors...))
		}
		sets = gated
		for i, ts := range managed {
			managed[i] = toolset.ApprovalRequired(ts, a.approvalSelectors...)
		}
		if len(tools) > 0 {
			sets = append(sets, toolset.ApprovalRequired(toolset.New("run", tools...), a.approvalSelectors...))
			tools = nil
		}
	}
	if err := r.Add(tools...); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := toolset.Register(r, rc, sets...); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := a.checkOutputName(r); err != nil {
		return nil, nil, nil, err
	}
	return r, managed, at, nil
}

// checkOutputName refuses a registry holding a tool named like the output
// tool.
func (a *Agent) checkOutputName(r *tool.Registry) error {
	if a.output != nil && a.output.spec.Mode == model.OutputTool {
		if _, taken := r.Tool(a.output.spec.Name); taken {
			return fmt.Errorf("%w: a tool is named %q like the output tool", ErrConfig, a.output.spec.Name)
		}
	}
	return nil
}
