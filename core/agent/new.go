package agent

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Options holds every setting of an agent; New checks them and builds the
// agent. The zero value of each field means the default, so the zero
// Options is a valid agent with no tools. New copies the slices, maps and
// specs it keeps: changing Options after New does not change the agent.
//
// Each field has a Builder method of the same purpose, whose doc says more
// (Options.Timeout is Builder.Timeout, and so on); Builder.Build is New
// over the Options the Builder collected.
//
// A field's json tag is its name in the agent spec of the C ABI (package
// capi), which decodes those fields straight into Options; "-" marks a
// field the spec gives in another form (a handle, a value in
// milliseconds, a spec the C ABI converts) or not at all.
type Options struct {
	// Name names the agent.
	Name string `json:"name"`
	// SystemPrompt is sent at the start of a conversation.
	SystemPrompt string `json:"system_prompt"`
	// Instructions are sent with every request.
	Instructions []string `json:"instructions"`
	// Tools are the agent's own tools, in a toolset named "agent".
	Tools []tool.Tool `json:"-"`
	// ToolCapabilityGrants grants tools, by name, authority in every
	// session (see Builder.GrantToolCapabilities).
	ToolCapabilityGrants map[string]agentctx.Grant `json:"tool_capability_grants"`
	// Subagents are child-agent routes, started with the spawn_agent tool
	// (see Builder.Subagents); SpawnConcurrency caps its calls at once.
	Subagents        []Subagent `json:"-"`
	SpawnConcurrency int        `json:"spawn_concurrency"`
	// Toolsets are registered in order after the tools and registries.
	Toolsets []toolset.Toolset `json:"-"`
	// Registries contribute every tool they hold, with their toolset
	// defaults and hooks.
	Registries []*tool.Registry `json:"-"`
	// Hooks are global execution hooks.
	Hooks []tool.Hook `json:"-"`
	// MaxRetries is the agent-wide retry budget, below tools and toolsets
	// (nil: tool.DefaultMaxRetries). It must not be negative.
	MaxRetries *int `json:"max_retries"`
	// Timeout is the agent-wide tool timeout, below tools and toolsets
	// (0: none). It must not be negative.
	Timeout time.Duration `json:"-"`
	// DefaultEffect is the effect class of tools that declare none
	// (see Builder.DefaultEffect).
	DefaultEffect effect.Class `json:"default_effect"`
	// Sequential makes every batch run in model order.
	Sequential bool `json:"sequential"`
	// MaxConcurrency caps concurrent tool calls per batch (0: no cap).
	MaxConcurrency int `json:"max_concurrency"`
	// HistoryProcessors rewrite the messages of every model request (see
	// Builder.HistoryProcessors).
	HistoryProcessors []HistoryProcessor `json:"-"`
	// DisableEagerDispatch keeps calls from starting while the response
	// that makes them still streams (see Builder.EagerDispatch).
	DisableEagerDispatch bool `json:"-"`
	// UnavailableTools is the policy for unavailable tools
	// (SkipUnavailable by default).
	UnavailableTools UnavailablePolicy `json:"unavailable_tools"`
	// UsageLimits are the agent's usage limits (a zero field: the
	// default; RequestLimit is Builder.MaxSteps). No field may be
	// negative.
	UsageLimits UsageLimits `json:"-"`
	// Settings are the model settings of every request (see
	// Builder.Settings).
	Settings model.Settings `json:"-"`
	// Output makes runs end with a structured answer (nil: text runs).
	Output *OutputSpec `json:"-"`
	// OutputRetries is the output-retry budget (nil: MaxRetries, else
	// tool.DefaultMaxRetries). It must not be negative.
	OutputRetries *int `json:"output_retries"`
	// Deps are the dependencies tools receive.
	Deps *tool.Deps `json:"-"`
	// Metadata is run metadata visible to availability checks and tools.
	Metadata map[string]any `json:"metadata"`
	// ActiveTags are the capability tags active in runs.
	ActiveTags []string `json:"active_tags"`
	// ApprovalRequiredTools gates the matching tools behind a person's
	// approval (see Builder.ApprovalRequiredTools).
	ApprovalRequiredTools []string `json:"approval_required_tools"`
	// StateKey signs exported session state (nil: unsigned; see
	// Builder.StateKey). A non-nil empty key is refused.
	StateKey []byte `json:"-"`
	// SessionStore keeps the agent's sessions (nil: in memory; see
	// Builder.SessionStore).
	SessionStore session.Store `json:"-"`
	// EffectJournal journals the calls that may change the world (nil:
	// none; see Builder.EffectJournal). Its Store must be set.
	EffectJournal *effect.Journal `json:"-"`
	// Intents realises the intents tools declare (nil: none; see
	// Builder.Intents). Its Journal must be set.
	Intents *intent.Realiser `json:"-"`
	// ArtifactStore and ArtifactScope give the agent an artifact store
	// and the scope its runs use (both unset: none; see
	// Builder.Artifacts). Set one, set both.
	ArtifactStore artifact.Store `json:"-"`
	ArtifactScope artifact.Scope `json:"-"`
	// ArtifactResolveLimit bounds one artifact resolved into a model
	// request (0: artifact.DefaultMaxBytes). It must not be negative.
	ArtifactResolveLimit int64 `json:"-"`
	// MaxToolOutputBytes bounds one call's output (0:
	// tool.DefaultMaxOutputBytes). It must not be negative.
	MaxToolOutputBytes int `json:"-"`
	// OutputBudget bounds what one tool return adds to a conversation
	// (see OutputBudget).
	OutputBudget OutputBudget `json:"-"`
	// ToolErrorPolicy says what runs do when a tool call fails
	// (ReturnToModel by default).
	ToolErrorPolicy ToolErrorPolicy `json:"-"`
	// Environment is every session's default environment provider (nil:
	// none; see Builder.Environment).
	Environment env.Provider `json:"-"`
	// BatchTool offers the native batch tool (see Builder.BatchTool): the
	// shorthand of installing StandardBatchPlugin.
	BatchTool bool `json:"batch_tool"`
	// Handoffs are the agents the model may transfer the run to, each
	// through its transfer tool (see Handoff). A transfer tool named like
	// another tool of the agent is ErrConfig.
	Handoffs []Handoff `json:"-"`
	// Plugins are installed in order (see Builder.Plugin).
	Plugins []PluginFactory `json:"-"`
	// ProjectionResolver materialises the projected values of calls'
	// arguments (nil: arguments are the model's; see
	// Builder.ProjectionResolver).
	ProjectionResolver tool.ProjectionResolver `json:"-"`
	// DestructivePolicy says what calls of destructive tools do (effect
	// class "destructive"): "" and tool.DestructiveApprove pause them for
	// a person's approval, tool.DestructiveAllow runs them, and
	// tool.DestructiveDeny refuses them (see Builder.DestructivePolicy).
	DestructivePolicy tool.DestructivePolicy `json:"destructive_policy"`
	// DestructiveDecider, when set, decides per call, before
	// DestructivePolicy applies (see tool.DestructiveDecider).
	DestructiveDecider tool.DestructiveDecider `json:"-"`
}

// New checks o (a model is set, every setting is in range, tool names are
// unique, schemas are well formed) and returns an agent answering with m.
// It reports a setting out of range as ErrConfig (usage limits as
// ErrInvalidLimit, model settings as ErrInvalidSettings).
func New(m model.Model, o Options) (*Agent, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no model", ErrConfig)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	a := Agent{
		model:             m,
		name:              o.Name,
		systemPrompt:      o.SystemPrompt,
		instructions:      append([]string(nil), o.Instructions...),
		tools:             append([]tool.Tool(nil), o.Tools...),
		capabilityGrants:  maps.Clone(o.ToolCapabilityGrants),
		toolsets:          append([]toolset.Toolset(nil), o.Toolsets...),
		registries:        append([]*tool.Registry(nil), o.Registries...),
		hooks:             append([]tool.Hook(nil), o.Hooks...),
		timeout:           o.Timeout,
		defaultEffect:     o.DefaultEffect,
		sequential:        o.Sequential,
		maxConcurrency:    o.MaxConcurrency,
		noEager:           o.DisableEagerDispatch,
		historyProcessors: slices.Clone(o.HistoryProcessors),
		unavailable:       o.UnavailableTools,
		limits:            o.UsageLimits,
		settings:          o.Settings,
		deps:              o.Deps,
		metadata:          maps.Clone(o.Metadata),
		activeTags:        append([]string(nil), o.ActiveTags...),
		sessions:          o.SessionStore,
		intents:           o.Intents,
		approvalSelectors: append([]string(nil), o.ApprovalRequiredTools...),
		resolveLimit:      o.ArtifactResolveLimit,
		maxOutput:         o.MaxToolOutputBytes,
		budget:            o.OutputBudget,
		toolErrorPolicy:   o.ToolErrorPolicy,
		environment:       o.Environment,
		batchTool:         o.BatchTool,
		plugins:           slices.Clone(o.Plugins),
		projection:        o.ProjectionResolver,
		destructive:       o.DestructivePolicy,
		decider:           o.DestructiveDecider,
	}
	if len(o.Subagents) > 0 {
		spawn, routes, err := newSpawnTool(o.Subagents, o.SpawnConcurrency)
		if err != nil {
			return nil, err
		}
		a.tools = append(a.tools, spawn)
		a.routes = routes
	}
	if o.MaxRetries != nil {
		a.maxRetries = new(*o.MaxRetries)
	}
	if o.OutputRetries != nil {
		a.outputRetries = new(*o.OutputRetries)
	}
	if o.StateKey != nil {
		a.stateKey = append([]byte(nil), o.StateKey...)
	}
	if o.Output != nil {
		s := *o.Output
		s.Validators = append([]OutputValidator(nil), o.Output.Validators...)
		a.outputSpec = &s
	}
	if o.EffectJournal != nil {
		j := *o.EffectJournal
		a.journal = &j
	}
	if o.ArtifactStore != nil || o.ArtifactScope != (artifact.Scope{}) {
		arts, err := newArtifacts(o.ArtifactScope, o.ArtifactStore)
		if err != nil {
			return nil, err
		}
		a.artifacts = arts
	}
	hs, err := compileHandoffs(o.Handoffs)
	if err != nil {
		return nil, err
	}
	a.handoffs = hs
	if err := a.build(); err != nil {
		return nil, err
	}
	return &a, nil
}

// check reports the first setting of o out of range, in field order.
func (o *Options) check() error {
	if o.MaxRetries != nil {
		if err := checkMaxRetries(*o.MaxRetries); err != nil {
			return err
		}
	}
	if o.Timeout != 0 {
		if err := checkTimeout(o.Timeout); err != nil {
			return err
		}
	}
	if err := checkDefaultEffect(o.DefaultEffect); err != nil {
		return err
	}
	if err := checkPlugins(o.Plugins); err != nil {
		return err
	}
	if err := tool.CheckDestructivePolicy(o.DestructivePolicy); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := o.UsageLimits.check(); err != nil {
		return err
	}
	if err := checkSettings(o.Settings); err != nil {
		return err
	}
	if o.OutputRetries != nil {
		if err := checkOutputRetries(*o.OutputRetries); err != nil {
			return err
		}
	}
	if o.StateKey != nil {
		if err := checkStateKey(o.StateKey); err != nil {
			return err
		}
	}
	if o.EffectJournal != nil {
		if err := checkEffectJournal(o.EffectJournal); err != nil {
			return err
		}
	}
	if err := checkIntents(o.Intents); err != nil {
		return err
	}
	if err := checkSpawnConcurrency(o.SpawnConcurrency); err != nil {
		return err
	}
	if o.ArtifactResolveLimit != 0 {
		if err := checkResolveLimit(o.ArtifactResolveLimit); err != nil {
			return err
		}
	}
	if o.MaxToolOutputBytes != 0 {
		if err := checkMaxToolOutput(o.MaxToolOutputBytes); err != nil {
			return err
		}
	}
	if err := checkOutputBudget(o.OutputBudget); err != nil {
		return err
	}
	return o.ToolErrorPolicy.check()
}

// build compiles a checked agent: its batch tool, base registry, output
// tool and managed toolsets, then checks the registry a run would see.
func (a *Agent) build() error {
	a.toolsets = a.withPlugins(a.toolsets)
	a.schemas = &tool.SchemaCache{}
	if len(a.approvalSelectors) == 0 {
		base, err := a.baseRegistry(a.tools)
		if err != nil {
			return err
		}
		a.base = base
	}
	out, err := a.buildOutput()
	if err != nil {
		return err
	}
	a.output = out
	a.managed = managedMask(a.toolsets)
	// Managed toolsets are entered and read in runs only.
	reg, _, _, err := a.registry(&tool.RunContext{Metadata: a.metadata, Deps: a.deps}, nil)
	if err != nil {
		return err
	}
	if err := a.checkRoutes(reg); err != nil {
		return err
	}
	if _, taken := reg.Tool(ReadArtifactToolName); taken && a.spills() {
		return fmt.Errorf("%w: a tool is named %q like the tool that reads spilled outputs", ErrConfig, ReadArtifactToolName)
	}
	return nil
}

// The checks below are New's; Builder methods run the same ones, so that
// Build reports the first invalid setting in the order they were made.

func checkMaxRetries(n int) error {
	if err := tool.CheckMaxRetries(n); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

func checkTimeout(d time.Duration) error {
	if err := tool.CheckTimeout(d); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

func checkDefaultEffect(c effect.Class) error {
	if err := tool.CheckEffect(c); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

func checkMaxSteps(n int) error {
	if n <= 0 {
		return invalidLimit(LimitRequests+" (max steps)", n)
	}
	return nil
}

func checkOutputRetries(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: output retries must not be negative, got %d", ErrConfig, n)
	}
	return nil
}

func checkStateKey(key []byte) error {
	if len(key) == 0 {
		return fmt.Errorf("%w: the state key is empty; give a non-empty key to sign exported state, or set none to export it unsigned", ErrConfig)
	}
	return nil
}

func checkEffectJournal(j *effect.Journal) error {
	if j.Store == nil {
		return fmt.Errorf("%w: EffectJournal needs a store", ErrConfig)
	}
	if j.Recovery.Known() {
		return nil
	}
	return fmt.Errorf("%w: unknown effect recovery policy %q (want %q or %q)", ErrConfig, j.Recovery,
		effect.RecoveryRejectAmbiguous, effect.RecoveryRetrySafe)
}

func checkIntents(r *intent.Realiser) error {
	if r != nil && r.Journal == nil {
		return fmt.Errorf("%w: Intents needs a Realiser with a Journal", ErrConfig)
	}
	return nil
}

func newArtifacts(scope artifact.Scope, store artifact.Store) (*tool.Artifacts, error) {
	a, err := tool.NewArtifacts(store, scope)
	if err != nil {
		return nil, fmt.Errorf("%w: artifacts: %w", ErrConfig, err)
	}
	return a, nil
}

func checkResolveLimit(n int64) error {
	if n <= 0 {
		return fmt.Errorf("%w: the artifact resolve limit must be positive, got %d", ErrConfig, n)
	}
	return nil
}

func checkMaxToolOutput(n int) error {
	if n <= 0 {
		return fmt.Errorf("%w: the tool output limit must be positive, got %d", ErrConfig, n)
	}
	return nil
}

func checkOutputBudget(ob OutputBudget) error {
	if ob.MaxBytes < 0 || ob.HeadBytes < 0 || ob.headBytes() > ob.maxBytes() {
		return fmt.Errorf("%w: an output budget needs 0 ≤ head ≤ max, got head %d, max %d", ErrConfig, ob.HeadBytes, ob.MaxBytes)
	}
	return nil
}
