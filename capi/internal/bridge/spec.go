package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/bundles"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"

	"github.com/starweaver-go/starweaver/core/effect"
)

// modelSpec is the JSON given to sw_model_new.
type modelSpec struct {
	Kind      string          `json:"kind"`
	Responses []model.Message `json:"responses"`
	// Auto: a test model without a script (model.NewAutoTestModel).
	Auto bool `json:"auto"`
	// Provider configures the provider kinds (see models.go).
	Provider *providerSpec `json:"provider"`
	// Models are the handles of a fallback's models, in the order they
	// are asked; FallbackOn the failure kinds passed on (model.FallbackOn;
	// absent: the defaults).
	Models     []int64  `json:"models"`
	FallbackOn []string `json:"fallback_on"`
}

// toolSpec describes a host tool: its definition and the host's id for it.
type toolSpec struct {
	ID         int64           `json:"id"`
	Definition tool.Definition `json:"definition"`
	TimeoutMS  *int64          `json:"timeout_ms"`
	MaxRetries *int            `json:"max_retries"`
	// Effect is the tool's effect class (effect.Class); "" is undeclared.
	Effect effect.Class `json:"effect"`
	// Context says the host tool reads its call context; calls of tools
	// that do not are sent without it.
	Context bool `json:"context"`
	// Preprocess says the host tool has a user-input preprocessor.
	Preprocess bool `json:"preprocess"`
	// Client marks a tool without a host body: every call is deferred to
	// the client, which answers through a resume.
	Client bool `json:"client"`
	// Hooks run around this tool only; Validators are host ids of its
	// argument validators, run in order after its hooks (hosthook.go).
	Hooks      []hookSpec `json:"hooks"`
	Validators []int64    `json:"validators"`
	// Prepare, when not 0, is the host callback that decides the tool's
	// definition for each run step, and Available the one that decides
	// whether it is available (see hostprepare.go); the two are separate so
	// that core tells an unavailable tool from one its preparation hid.
	Prepare   int64 `json:"prepare"`
	Available int64 `json:"available"`
	// MaxConcurrency caps the tool's calls in flight (tool.Limiter).
	MaxConcurrency *int `json:"max_concurrency"`
	// Resource orders the tool's calls by resource key (resourcekeys.go).
	Resource *resourceSpec `json:"resource"`
	// AgentTool, when set, makes the tool of another agent (agent.AsTool);
	// the other fields are then unused.
	AgentTool *agentToolSpec `json:"agent_tool"`
	// PreserveProjectedRefsInField, when set, is the one argument whose
	// projected values keep their wrappers
	// (tool.PreserveProjectedRefsInField).
	PreserveProjectedRefsInField string `json:"preserve_projected_refs_in_field"`
	// AttemptMayDefer says the tool may return Pending (tool.Pending): its
	// calls get a completion key.
	AttemptMayDefer bool `json:"attempt_may_defer"`
}

// agentToolSpec names an agent, by its handle, to call as a tool.
type agentToolSpec struct {
	Agent       int64  `json:"agent"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Grants, when not null, are the only tools the agent's runs may call.
	Grants []string `json:"grants"`
	// Deps names the caller's named dependencies the agent's runs receive.
	Deps       []string `json:"deps"`
	MaxRetries *int     `json:"max_retries"`
}

func (s agentToolSpec) build() (tool.Tool, error) {
	child, err := lookup[*agent.Agent](s.Agent)
	if err != nil {
		return nil, specError("agent tool %q: %v", s.Name, err)
	}
	t, err := agent.AsTool(child, agent.AsToolOptions{Name: s.Name, Description: s.Description, Grants: s.Grants, Deps: s.Deps, MaxRetries: s.MaxRetries})
	if err != nil {
		return nil, specError("%v", err)
	}
	return t, nil
}

type toolsetSpec struct {
	Name         string     `json:"name"`
	ID           string     `json:"id"`
	Tools        []toolSpec `json:"tools"`
	Instructions []string   `json:"instructions"`
	// InstructionGroups are instructions with their own group (a blank
	// group is the toolset's name), added after Instructions; across the
	// run's toolsets one instruction per group is kept, the first
	// (toolset.RenderInstructions).
	InstructionGroups []toolset.Instruction `json:"instruction_groups"`
	MaxRetries        *int                  `json:"max_retries"`
	TimeoutMS         *int64                `json:"timeout_ms"`
	// MaxConcurrency caps the calls of each of its tools on its own.
	MaxConcurrency *int `json:"max_concurrency"`
	// ApprovalRequired and Deferred wrap the toolset with those policies
	// for the tools their selectors match.
	ApprovalRequired []string `json:"approval_required"`
	Deferred         []string `json:"deferred"`
	// Bundle names a first-party toolset implemented in Go
	// ("user_input", "filesystem"); it replaces Tools and Instructions.
	Bundle string `json:"bundle"`
	// Policy narrows the "shell" bundle's shell_exec (shell.Options.Policy).
	Policy *shellPolicySpec `json:"policy"`
	// Combined, when set, makes this toolset the union of its members
	// (see toolsettree.go); it replaces Tools.
	Combined []toolsetSpec `json:"combined"`
	// Layers are combinators wrapped around the toolset, in order.
	Layers []layerSpec `json:"layers"`
	// Catalog, when set, makes this toolset a tool search or tool proxy
	// over its Combined members (see catalog.go).
	Catalog *catalogSpec `json:"catalog"`
	// Kind, when set, names a toolset built from its own object instead
	// of Tools (see kindToolset): "mcp" reads MCP.
	Kind string   `json:"kind"`
	MCP  *mcpSpec `json:"mcp"`
	// Skills is read by kind "skills" (skills.go).
	Skills *skillsToolsetSpec `json:"skills"`
	// InstructionsCallback, when not 0, is the host callback giving
	// per-context instructions (see hostinstructions.go).
	InstructionsCallback int64 `json:"instructions_callback"`
	// Dynamic makes the toolset one the host prepares per run or step;
	// Lifecycle is its lifecycle policy (hostdynamic.go).
	Dynamic   *dynamicSpec   `json:"dynamic"`
	Lifecycle *lifecycleSpec `json:"lifecycle"`
}

// agentSpec is the JSON given to sw_agent_new. The embedded agent.Options
// decodes the plain options, each under its json tag (a field tagged "-"
// is not on the wire); the fields below are the options the bridge
// converts: handles, milliseconds, host callbacks and specs.
type agentSpec struct {
	agent.Options
	Model     int64         `json:"model"`
	Tools     []toolSpec    `json:"tools"`
	Toolsets  []toolsetSpec `json:"toolsets"`
	TimeoutMS *int64        `json:"timeout_ms"`
	// EagerDispatch, when false, turns eager dispatch off (default on).
	EagerDispatch *bool `json:"eager_dispatch"`
	// MaxSteps sets the request limit; 0 or less is refused by core.
	MaxSteps *int `json:"max_steps"`
	// UsageLimits are decoded by core, which refuses a limit of 0 or less.
	UsageLimits *agent.UsageLimits `json:"usage_limits"`
	// StateKey signs exported session state (HMAC-SHA256) when set; core
	// refuses an empty one.
	StateKey *string `json:"state_key"`
	// Settings are the model settings of every request; core checks them.
	Settings *model.Settings `json:"settings"`
	// Output asks for a structured final answer.
	Output *outputSpec `json:"output"`
	// Hooks are global execution hooks, in order (hosthook.go).
	Hooks []hookSpec `json:"hooks"`
	// SessionStore is a store handle (sw_store_open) keeping the agent's
	// sessions; 0 for none (store.go).
	SessionStore int64 `json:"session_store"`
	// EffectJournal is a store handle (sw_store_open) keeping the agent's
	// effect journal; EffectRecovery names its recovery policy (journal.go).
	EffectJournal  int64  `json:"effect_journal"`
	EffectRecovery string `json:"effect_recovery"`
	// IntentJournal is a store handle keeping the intents tools declare
	// (intents.go).
	IntentJournal int64 `json:"intent_journal"`
	// Artifacts, MaxToolOutputBytes and OutputBudget configure rich
	// outputs (artifacts.go).
	Artifacts          *artifactsSpec    `json:"artifacts"`
	MaxToolOutputBytes *int              `json:"max_tool_output_bytes"`
	OutputBudget       *outputBudgetSpec `json:"output_budget"`
	// ToolErrorPolicy is "return_to_model" (the default) or "fail_fast"
	// (policy.go).
	ToolErrorPolicy *agent.ToolErrorPolicy `json:"tool_error_policy"`
	// Shell gives the agent's runs a local shell (shell.go).
	Shell *shellSpec `json:"shell"`
	// Environment is every session's default environment provider
	// (environment.go).
	Environment *environmentSpec `json:"environment"`
	// Handoffs are the agents the model may transfer the run to
	// (handoff.go).
	Handoffs []handoffSpec `json:"handoffs"`
	// Subagents are the child-agent routes spawn_agent starts
	// (subagent.go); Options.SpawnConcurrency caps its calls.
	Subagents []subagentSpec `json:"subagents"`
	// Plugins names built-in plugins to install, in order (core's
	// agent.BuiltinPlugins decodes and checks them).
	Plugins []string `json:"plugins"`
	// ProjectionResolverID, when not 0, is the host function that
	// materialises projected argument values (projection.go).
	ProjectionResolverID int64 `json:"projection_resolver"`
	// DestructiveDeciderID, when not 0, is the host function that decides
	// the destructive policy of each destructive call (destructive.go).
	DestructiveDeciderID int64 `json:"destructive_decider"`
}

// outputSpec is agent.OutputSpec as a host gives it. Validator, when not
// 0, is the host id of a function validating the answer: it is called
// like a host tool that reads its context (a "call" item whose arguments
// are the answer), and its outcome is the answer to keep, or a model_retry
// (or invalid_arguments) error sent back to the model; any other error
// fails the run.
type outputSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Schema      map[string]any `json:"schema"`
	Mode        string         `json:"mode"`
	Strict      bool           `json:"strict"`
	Validator   int64          `json:"validator"`
}

func (s outputSpec) build() agent.OutputSpec {
	out := agent.OutputSpec{Name: s.Name, Description: s.Description, Schema: s.Schema, Mode: s.Mode, Strict: s.Strict}
	if s.Validator != 0 {
		host := &hostTool{id: s.Validator, def: tool.Definition{Name: out.ToolName()}, context: true}
		out.Validators = []agent.OutputValidator{func(ctx context.Context, tc *tool.Context, value json.RawMessage) (json.RawMessage, error) {
			res, err := host.Call(ctx, tc, value)
			if err != nil {
				return nil, err
			}
			b, ok := res.Content.(json.RawMessage)
			if !ok {
				return nil, tool.UserError("the host's output validator returned no value")
			}
			return b, nil
		}}
	}
	return out
}

// runSpec is the JSON given to sw_run_start.
type runSpec struct {
	Prompt       string         `json:"prompt"`
	Tools        []toolSpec     `json:"tools"`
	Toolsets     []toolsetSpec  `json:"toolsets"`
	Instructions []string       `json:"instructions"`
	Metadata     map[string]any `json:"metadata"`
	Events       bool           `json:"events"`
	// Deltas asks for the live events (agent.WithDeltas).
	Deltas bool `json:"deltas"`
	// Trace sends every call with its context (tool call id included), so
	// the host can run each call inside its trace span.
	Trace bool `json:"trace"`
	// ActiveTags add capability tags to the agent's for this run.
	ActiveTags []string `json:"active_tags"`
	// UsageLimits override the agent's for this run.
	UsageLimits *agent.UsageLimits `json:"usage_limits"`
	// Settings are merged over the agent's for this run.
	Settings *model.Settings `json:"settings"`
	// Resume, when set, answers the session's waiting run instead of
	// sending a prompt.
	Resume *agent.Resolution `json:"resume"`
	// ToolErrorPolicy overrides the agent's; Grants, when not null, are
	// the only tools the run may call (policy.go).
	ToolErrorPolicy *agent.ToolErrorPolicy `json:"tool_error_policy"`
	Grants          []string               `json:"grants"`
	// Recover continues the run a stopped worker left in flight (or its
	// claimed resume) instead of sending a prompt (agent.Session.Recover).
	Recover bool `json:"recover"`
	// Executor hands the run's model requests and tool batches to the
	// host as step_model and step_batch items (executor.go); RunID gives
	// the run its id (agent.WithRunID).
	Executor bool   `json:"executor"`
	RunID    string `json:"run_id"`
	// ModelRequest and RunBatch run no loop: the "run" makes that one
	// model request (agent.Agent.RequestModel) or runs that batch
	// (agent.Agent.RunBatch) for a host that executes another run's
	// steps, and its done item carries the response or the returns.
	ModelRequest *agent.ModelRequest `json:"model_request"`
	RunBatch     *agent.Batch        `json:"run_batch"`
	// Availability runs no loop either: the "run" previews the first
	// request of a run with the request's options
	// (agent.Session.AvailabilityReport), and its done item carries the
	// report.
	Availability bool `json:"availability"`
}

func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		if errors.Is(err, agent.ErrState) {
			// A decision core refuses (see agent.ApprovalDecision).
			return err
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Struct == "agentSpec" {
			// encoding/json names a promoted field by its path through the
			// embedded agent.Options; the wire knows the field by its name.
			typeErr.Field = strings.TrimPrefix(typeErr.Field, "Options.")
		}
		return specError("%v", err)
	}
	// One JSON value and nothing after it: trailing bytes mean a spec
	// that was cut or glued together wrongly.
	end := d.InputOffset()
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return specError("unexpected data after the JSON value (at byte %d)", end)
	}
	return nil
}

func (s toolSpec) build() (tool.Tool, error) {
	if s.AgentTool != nil {
		return s.AgentTool.build()
	}
	if s.Definition.Name == "" {
		return nil, specError("tool %d has no name", s.ID)
	}
	if s.Client {
		return toolset.ClientTool(s.Definition.Name, s.Definition.Description, s.Definition.Parameters), nil
	}
	t := &hostTool{id: s.ID, def: s.Definition, context: s.Context}
	if s.Preprocess {
		t.cfg.PreprocessUserInput = t.preprocess
	}
	for _, hs := range s.Hooks {
		h, err := hs.build()
		if err != nil {
			return nil, err
		}
		t.cfg.Hooks = append(t.cfg.Hooks, h)
	}
	for _, id := range s.Validators {
		t.cfg.Hooks = append(t.cfg.Hooks, validatorHook(id))
	}
	if s.Prepare != 0 {
		t.cfg.Prepare = hostToolPrepare(s.Prepare)
	}
	if s.Available != 0 {
		t.cfg.Available = hostToolAvailable(s.Available)
	}
	if t.def.Metadata == nil {
		t.def.Metadata = map[string]any{}
	}
	if s.MaxRetries != nil {
		if err := t.cfg.SetMaxRetries(t.def.Metadata, *s.MaxRetries); err != nil {
			return nil, specError("tool %q: %v", s.Definition.Name, err)
		}
	}
	if s.TimeoutMS != nil {
		if err := t.cfg.SetTimeout(t.def.Metadata, millis(*s.TimeoutMS)); err != nil {
			return nil, specError("tool %q: %v", s.Definition.Name, err)
		}
	}
	if err := t.cfg.SetEffect(t.def.Metadata, s.Effect); err != nil {
		return nil, specError("tool %q: %v", s.Definition.Name, err)
	}
	if s.MaxConcurrency != nil {
		if err := t.cfg.SetMaxConcurrency(t.def.Metadata, *s.MaxConcurrency); err != nil {
			return nil, specError("tool %q: %v", s.Definition.Name, err)
		}
	}
	t.cfg.AttemptMayDefer = s.AttemptMayDefer
	if s.PreserveProjectedRefsInField != "" {
		t.cfg.ArgumentProjection = tool.PreserveProjectedRefsInField(s.PreserveProjectedRefsInField)
	}
	if s.Resource != nil {
		rk, err := s.Resource.build(t.id)
		if err != nil {
			return nil, specError("tool %q: %v", s.Definition.Name, err)
		}
		t.cfg.Resource = rk
	}
	return t, nil
}

// invalidOptions are the sentinels of the options core refuses (retry
// budgets, timeouts, limits and sizes out of range, unknown kinds, names
// that are not names), each matched by the failures of one core package.
var invalidOptions = []error{tool.ErrInvalidOption, env.ErrInvalidOption, artifact.ErrInvalidConfig, catalog.ErrInvalid, catalog.ErrPrefix}

// optionError reports an option value that core refused (one of
// invalidOptions) as invalid_spec with core's message; any other error is
// returned as it is.
func optionError(err error) error {
	for _, sentinel := range invalidOptions {
		if errors.Is(err, sentinel) {
			return specError("%v", err)
		}
	}
	return err
}

// millis decodes a spec's timeout_ms; core checks its range (a value too
// large for a time.Duration is kept at the largest one, a value too small
// at the smallest, so that the sign is kept).
func millis(ms int64) time.Duration {
	switch {
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64
	case ms < math.MinInt64/int64(time.Millisecond):
		return math.MinInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// optionalMillis decodes a spec's optional timeout: nil when absent.
func optionalMillis(ms *int64) *time.Duration {
	if ms == nil {
		return nil
	}
	d := millis(*ms)
	return &d
}

func buildTools(specs []toolSpec) ([]tool.Tool, error) {
	out := make([]tool.Tool, 0, len(specs))
	for _, s := range specs {
		t, err := s.build()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func buildToolsets(specs []toolsetSpec) ([]toolset.Toolset, error) {
	out := make([]toolset.Toolset, 0, len(specs))
	for _, s := range specs {
		set, err := buildToolset(s)
		if err != nil {
			return nil, err
		}
		if s.InstructionsCallback != 0 {
			set = &hostInstructions{Toolset: set, callback: s.InstructionsCallback}
		}
		if set, err = applyLayers(set, s.Layers); err != nil {
			return nil, err
		}
		set = wrapPolicies(set, s)
		if s.Lifecycle != nil {
			p, err := s.Lifecycle.policy(set.Name())
			if err != nil {
				return nil, err
			}
			set = toolset.WithLifecycle(set, p)
		}
		out = append(out, set)
	}
	return out, nil
}

func buildToolset(s toolsetSpec) (toolset.Toolset, error) {
	if s.Kind != "" || s.MCP != nil || s.Skills != nil {
		return kindToolset(s)
	}
	if s.Bundle != "" {
		return bundle(s.Bundle, s.Policy)
	}
	if s.Catalog != nil {
		return catalogToolset(s)
	}
	if len(s.Combined) > 0 {
		return combinedToolset(s)
	}
	if s.Dynamic != nil {
		return newHostDynamic(s)
	}
	if s.Name == "" {
		return nil, specError("toolset without a name")
	}
	tools, err := buildTools(s.Tools)
	if err != nil {
		return nil, err
	}
	ts := toolset.New(s.Name, tools...)
	if s.ID != "" {
		ts = ts.WithID(s.ID)
	}
	ts = ts.WithInstructions(s.Instructions...)
	for _, in := range s.InstructionGroups {
		ts = ts.WithInstruction(in.Group, in.Content)
	}
	if s.MaxRetries != nil {
		ts = ts.WithMaxRetries(*s.MaxRetries)
	}
	if s.TimeoutMS != nil {
		ts = ts.WithTimeout(millis(*s.TimeoutMS))
	}
	if s.MaxConcurrency != nil {
		ts = ts.WithMaxConcurrency(*s.MaxConcurrency)
	}
	if err := ts.Err(); err != nil {
		return nil, optionError(err)
	}
	return ts, nil
}

// wrapPolicies applies a toolset spec's approval and deferred policies.
func wrapPolicies(set toolset.Toolset, s toolsetSpec) toolset.Toolset {
	if len(s.ApprovalRequired) > 0 {
		set = toolset.ApprovalRequired(set, s.ApprovalRequired...)
	}
	if len(s.Deferred) > 0 {
		set = toolset.Deferred(set, s.Deferred...)
	}
	return set
}

// bundle returns a first-party toolset by name (bundles.New); policy
// applies to "shell" only.
func bundle(name string, policy *shellPolicySpec) (toolset.Toolset, error) {
	var opts bundles.Options
	if policy != nil {
		p := policy.policy()
		opts.ShellPolicy = &p
	}
	ts, err := bundles.New(name, opts)
	if err != nil {
		return nil, specError("%v", err)
	}
	return ts, nil
}

func buildAgent(s agentSpec) (*agent.Agent, error) {
	m, err := lookup[*modelHandle](s.Model)
	if err != nil {
		return nil, err
	}
	b := agent.NewBuilderFrom(m.m, s.Options)
	plugins, err := agent.BuiltinPlugins(s.Plugins)
	if err != nil {
		return nil, err
	}
	for _, p := range plugins {
		b.Plugin(p)
	}
	if s.ProjectionResolverID != 0 {
		b.ProjectionResolver(hostProjectionResolver(s.ProjectionResolverID))
	}
	if s.DestructiveDeciderID != 0 {
		b.DestructivePolicy(s.DestructivePolicy, hostDestructiveDecider(s.DestructiveDeciderID))
	}
	tools, err := buildTools(s.Tools)
	if err != nil {
		return nil, err
	}
	sets, err := buildToolsets(s.Toolsets)
	if err != nil {
		return nil, err
	}
	b.Tool(tools...).Toolset(sets...)
	handoffs, err := buildHandoffs(s.Handoffs)
	if err != nil {
		return nil, err
	}
	b.Handoffs(handoffs...)
	subagents, err := buildSubagents(s.Subagents)
	if err != nil {
		return nil, err
	}
	b.Subagents(subagents...)
	if s.EagerDispatch != nil {
		b.EagerDispatch(*s.EagerDispatch)
	}
	for _, hs := range s.Hooks {
		h, err := hs.build()
		if err != nil {
			return nil, err
		}
		b.Hook(h)
	}
	if s.TimeoutMS != nil {
		b.Timeout(millis(*s.TimeoutMS))
	}
	if s.MaxSteps != nil {
		b.MaxSteps(*s.MaxSteps)
	}
	if s.UsageLimits != nil {
		b.UsageLimits(*s.UsageLimits)
	}
	if s.StateKey != nil {
		b.StateKey([]byte(*s.StateKey))
	}
	if s.Settings != nil {
		b.Settings(*s.Settings)
	}
	if s.Output != nil {
		b.Output(s.Output.build())
	}
	s.applyPolicy(b)
	if err := useSessionStore(b, s.SessionStore); err != nil {
		return nil, err
	}
	if err := useEffectJournal(b, s.EffectJournal, s.EffectRecovery); err != nil {
		return nil, err
	}
	if err := s.applyArtifacts(b); err != nil {
		return nil, err
	}
	deps := &tool.Deps{}
	sh, err := s.Shell.provide(deps)
	if err != nil {
		return nil, err
	}
	b.Deps(deps)
	var envShell *env.LocalShell
	if s.Environment != nil {
		p, err := s.Environment.build()
		if err != nil {
			if sh != nil {
				sh.Close()
			}
			return nil, err
		}
		b.Environment(p)
		envShell = environmentShell(p)
	}
	procShell := sh
	if procShell == nil {
		procShell = envShell
	}
	if err := useIntentJournal(b, s.IntentJournal, procShell); err != nil {
		if sh != nil {
			sh.Close()
		}
		if envShell != nil {
			envShell.Close()
		}
		return nil, err
	}
	a, err := b.Build()
	if err != nil {
		if sh != nil {
			sh.Close()
		}
		if envShell != nil {
			envShell.Close()
		}
		return nil, optionError(err)
	}
	keepShells(a, sh, envShell)
	return a, nil
}

// modelHandle is what a model handle refers to.
type modelHandle struct {
	m model.Model
}

// capturedJSON is what sw_model_captured reports: the requests a test
// model received.
func capturedJSON(m *modelHandle) ([]byte, error) {
	tm, ok := m.m.(*model.TestModel)
	if !ok {
		return nil, &abiError{Type: "unsupported", Message: "only test models capture requests"}
	}
	reqs := tm.Requests()
	if len(reqs) == 0 {
		return []byte("[]"), nil // a model never asked: an empty list, not null
	}
	return json.Marshal(reqs)
}

func buildModel(s modelSpec) (*modelHandle, error) {
	switch s.Kind {
	case "test":
		if s.Auto {
			if len(s.Responses) > 0 {
				return nil, specError("a test model is either auto or scripted, not both")
			}
			return &modelHandle{m: model.NewAutoTestModel()}, nil
		}
		m, err := model.NewCheckedTestModel(s.Responses...)
		if err != nil {
			return nil, specError("%v", err)
		}
		return &modelHandle{m: m}, nil
	case "function":
		return &modelHandle{m: &hostModel{}}, nil
	case "fallback":
		return buildFallback(s)
	case "openai", "openai-responses", "anthropic", "bedrock", "google", "google-vertex":
		m, err := buildProvider(s.Kind, s.Provider)
		if err != nil {
			return nil, err
		}
		return &modelHandle{m: m}, nil
	}
	return nil, specError("unknown model kind %q", s.Kind)
}

func (s runSpec) options() ([]agent.RunOption, error) {
	tools, err := buildTools(s.Tools)
	if err != nil {
		return nil, err
	}
	sets, err := buildToolsets(s.Toolsets)
	if err != nil {
		return nil, fmt.Errorf("run toolsets: %w", err)
	}
	opts := []agent.RunOption{agent.WithTools(tools...), agent.WithToolsets(sets...),
		agent.WithInstructions(s.Instructions...), agent.WithMetadata(s.Metadata)}
	if len(s.ActiveTags) > 0 {
		opts = append(opts, agent.WithActiveTags(s.ActiveTags...))
	}
	if s.UsageLimits != nil {
		opts = append(opts, agent.WithUsageLimits(*s.UsageLimits))
	}
	if s.Settings != nil {
		opts = append(opts, agent.WithSettings(*s.Settings))
	}
	if s.Deltas {
		opts = append(opts, agent.WithDeltas())
	}
	opts = append(opts, s.policyOptions()...)
	if s.Executor {
		opts = append(opts, agent.WithExecutor(hostExecutor{}))
	}
	if s.RunID != "" {
		opts = append(opts, agent.WithRunID(s.RunID))
	}
	return opts, nil
}
