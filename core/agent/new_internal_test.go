package agent

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
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

func echoTool(name string) *tool.Function {
	return tool.New(name, "echo", map[string]any{"type": "object"},
		func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			return tool.Result{Content: string(args)}, nil
		})
}

// comparableAgent returns a copy of a holding only what reflect.DeepEqual
// can compare: the parts holding functions (tools, hooks, toolsets,
// validators) and the caches each build makes anew are compared by
// sameAgent itself.
func comparableAgent(a *Agent) Agent {
	c := *a
	c.tools, c.hooks, c.toolsets, c.registries = nil, nil, nil, nil
	c.schemas, c.base = nil, nil
	if c.outputSpec != nil {
		s := *c.outputSpec
		s.Validators = nil
		c.outputSpec = &s
	}
	if c.output != nil {
		o := *c.output
		o.reg = nil
		o.spec.Validators = nil
		c.output = &o
	}
	return c
}

// sameAgent fails t unless x and y hold the same settings.
func sameAgent(t *testing.T, x, y *Agent) {
	t.Helper()
	if cx, cy := comparableAgent(x), comparableAgent(y); !reflect.DeepEqual(cx, cy) {
		t.Fatalf("agents differ:\n%+v\n%+v", cx, cy)
	}
	if len(x.tools) != len(y.tools) || len(x.registries) != len(y.registries) ||
		len(x.hooks) != len(y.hooks) || len(x.toolsets) != len(y.toolsets) {
		t.Fatalf("agents differ in tools %d/%d, registries %d/%d, hooks %d/%d, toolsets %d/%d",
			len(x.tools), len(y.tools), len(x.registries), len(y.registries),
			len(x.hooks), len(y.hooks), len(x.toolsets), len(y.toolsets))
	}
	for i := range x.tools {
		if x.tools[i] != y.tools[i] {
			t.Fatalf("tool %d differs", i)
		}
	}
	for i := range x.registries {
		if x.registries[i] != y.registries[i] {
			t.Fatalf("registry %d differs", i)
		}
	}
	for i := range x.hooks {
		if x.hooks[i].Name != y.hooks[i].Name {
			t.Fatalf("hook %d differs: %q, %q", i, x.hooks[i].Name, y.hooks[i].Name)
		}
	}
	for i := range x.toolsets {
		if x.toolsets[i].Name() != y.toolsets[i].Name() || x.toolsets[i].ID() != y.toolsets[i].ID() {
			t.Fatalf("toolset %d differs: %q, %q", i, x.toolsets[i].Name(), y.toolsets[i].Name())
		}
	}
	if (x.base == nil) != (y.base == nil) {
		t.Fatalf("one agent has a base registry, the other not")
	}
	if (x.outputSpec == nil) != (y.outputSpec == nil) ||
		x.outputSpec != nil && len(x.outputSpec.Validators) != len(y.outputSpec.Validators) {
		t.Fatal("output validators differ")
	}
}

// New over Options builds the agent the Builder builds, setting by
// setting.
func TestNewMatchesBuilder(t *testing.T) {
	m := model.NewTestModel()
	echo, other := echoTool("echo"), echoTool("other")
	reg, err := tool.NewRegistry(other)
	if err != nil {
		t.Fatal(err)
	}
	ts := toolset.New("extra", echoTool("extra_tool"))
	hook := tool.Hook{Name: "audit"}
	grant := agentctx.Grant{HostCapabilities: []string{"net"}}
	deps := &tool.Deps{}
	sessions := &session.MemoryStore{}
	effects := effect.NewMemoryStore()
	reconciler := effect.Reconciler(nil)
	realiser := &intent.Realiser{Journal: intent.NewMemoryJournal()}
	arts := artifact.NewMemoryStore(artifact.Config{})
	scope, err := artifact.ParseScope("tenant-1")
	if err != nil {
		t.Fatal(err)
	}
	environment := env.NewVirtual("box")
	validator := OutputValidator(func(ctx context.Context, tc *tool.Context, v json.RawMessage) (json.RawMessage, error) {
		return v, nil
	})
	spec := OutputSpec{Name: "answer", Schema: map[string]any{"type": "object"}, Validators: []OutputValidator{validator}}

	cases := []struct {
		name  string
		build func(*Builder) *Builder
		opts  Options
	}{
		{"none", func(b *Builder) *Builder { return b }, Options{}},
		{"Name", func(b *Builder) *Builder { return b.Name("a") }, Options{Name: "a"}},
		{"SystemPrompt", func(b *Builder) *Builder { return b.SystemPrompt("be brief") }, Options{SystemPrompt: "be brief"}},
		{"Instructions", func(b *Builder) *Builder { return b.Instructions("one").Instructions("two") },
			Options{Instructions: []string{"one", "two"}}},
		{"Tool", func(b *Builder) *Builder { return b.Tool(echo) }, Options{Tools: []tool.Tool{echo}}},
		{"GrantToolCapabilities", func(b *Builder) *Builder { return b.Tool(echo).GrantToolCapabilities("echo", grant) },
			Options{Tools: []tool.Tool{echo}, ToolCapabilityGrants: map[string]agentctx.Grant{"echo": grant}}},
		{"Toolset", func(b *Builder) *Builder { return b.Toolset(ts) }, Options{Toolsets: []toolset.Toolset{ts}}},
		{"Registry", func(b *Builder) *Builder { return b.Registry(reg) }, Options{Registries: []*tool.Registry{reg}}},
		{"Hook", func(b *Builder) *Builder { return b.Hook(hook) }, Options{Hooks: []tool.Hook{hook}}},
		{"MaxRetries", func(b *Builder) *Builder { return b.MaxRetries(0) }, Options{MaxRetries: new(0)}},
		{"Timeout", func(b *Builder) *Builder { return b.Timeout(time.Second) }, Options{Timeout: time.Second}},
		{"DefaultEffect", func(b *Builder) *Builder { return b.DefaultEffect(effect.ClassUnknown) },
			Options{DefaultEffect: effect.ClassUnknown}},
		{"Sequential", func(b *Builder) *Builder { return b.Sequential(true) }, Options{Sequential: true}},
		{"MaxConcurrency", func(b *Builder) *Builder { return b.MaxConcurrency(2) }, Options{MaxConcurrency: 2}},
		{"EagerDispatch", func(b *Builder) *Builder { return b.EagerDispatch(false) }, Options{DisableEagerDispatch: true}},
		{"UnavailableTools", func(b *Builder) *Builder { return b.UnavailableTools(FailOnUnavailable) },
			Options{UnavailableTools: FailOnUnavailable}},
		{"MaxSteps", func(b *Builder) *Builder { return b.MaxSteps(7) }, Options{UsageLimits: UsageLimits{RequestLimit: 7}}},
		{"UsageLimits", func(b *Builder) *Builder {
			return b.MaxSteps(7).UsageLimits(UsageLimits{ToolCallsLimit: 3})
		}, Options{UsageLimits: UsageLimits{RequestLimit: 7, ToolCallsLimit: 3}}},
		{"Settings", func(b *Builder) *Builder {
			return b.Settings(model.Settings{Temperature: new(0.5)}).Settings(model.Settings{MaxTokens: new(9)})
		}, Options{Settings: model.Settings{Temperature: new(0.5), MaxTokens: new(9)}}},
		{"Output", func(b *Builder) *Builder { return b.Output(spec) }, Options{Output: &spec}},
		{"OutputRetries", func(b *Builder) *Builder { return b.Output(spec).OutputRetries(1) },
			Options{Output: &spec, OutputRetries: new(1)}},
		{"Deps", func(b *Builder) *Builder { return b.Deps(deps) }, Options{Deps: deps}},
		{"Metadata", func(b *Builder) *Builder { return b.Metadata(map[string]any{"k": "v"}) },
			Options{Metadata: map[string]any{"k": "v"}}},
		{"ActiveTags", func(b *Builder) *Builder { return b.ActiveTags("a").ActiveTags("b") },
			Options{ActiveTags: []string{"a", "b"}}},
		{"ApprovalRequiredTools", func(b *Builder) *Builder { return b.Tool(echo).ApprovalRequiredTools("echo") },
			Options{Tools: []tool.Tool{echo}, ApprovalRequiredTools: []string{"echo"}}},
		{"StateKey", func(b *Builder) *Builder { return b.StateKey([]byte("k")) }, Options{StateKey: []byte("k")}},
		{"SessionStore", func(b *Builder) *Builder { return b.SessionStore(sessions) }, Options{SessionStore: sessions}},
		{"EffectJournal", func(b *Builder) *Builder {
			return b.EffectJournal(effects, JournalRecovery(effect.RecoveryRetrySafe), JournalReconciler(reconciler))
		}, Options{EffectJournal: &effect.Journal{Store: effects, Recovery: effect.RecoveryRetrySafe, Reconciler: reconciler}}},
		{"Intents", func(b *Builder) *Builder { return b.Intents(realiser) }, Options{Intents: realiser}},
		{"IntentJournal", func(b *Builder) *Builder { return b.IntentJournal(realiser.Journal) },
			Options{Intents: &intent.Realiser{Journal: realiser.Journal}}},
		{"Artifacts", func(b *Builder) *Builder { return b.Artifacts(scope, arts) },
			Options{ArtifactStore: arts, ArtifactScope: scope}},
		{"ArtifactResolveLimit", func(b *Builder) *Builder { return b.ArtifactResolveLimit(10) },
			Options{ArtifactResolveLimit: 10}},
		{"MaxToolOutputBytes", func(b *Builder) *Builder { return b.MaxToolOutputBytes(10) },
			Options{MaxToolOutputBytes: 10}},
		{"OutputBudget", func(b *Builder) *Builder { return b.OutputBudget(OutputBudget{MaxBytes: 100, HeadBytes: 10}) },
			Options{OutputBudget: OutputBudget{MaxBytes: 100, HeadBytes: 10}}},
		{"ToolErrorPolicy", func(b *Builder) *Builder { return b.ToolErrorPolicy(FailFast) },
			Options{ToolErrorPolicy: FailFast}},
		{"Environment", func(b *Builder) *Builder { return b.Environment(environment) },
			Options{Environment: environment}},
		{"BatchTool", func(b *Builder) *Builder { return b.Tool(echo).BatchTool(true) },
			Options{Tools: []tool.Tool{echo}, BatchTool: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			built, err := c.build(NewBuilder(m)).Build()
			if err != nil {
				t.Fatal(err)
			}
			made, err := New(m, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			sameAgent(t, built, made)
			if c.name != "none" {
				// The setting is in the agent: it differs from the default one.
				plain, err := New(m, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if reflect.DeepEqual(comparableAgent(plain), comparableAgent(made)) &&
					len(plain.tools) == len(made.tools) && len(plain.toolsets) == len(made.toolsets) &&
					len(plain.registries) == len(made.registries) && len(plain.hooks) == len(made.hooks) {
					t.Fatalf("Options of %s made the default agent", c.name)
				}
			}
		})
	}
}

// New keeps its own copies: changing Options afterwards changes no agent.
func TestNewCopiesOptions(t *testing.T) {
	spec := OutputSpec{Schema: map[string]any{"type": "object"}}
	o := Options{
		Instructions: []string{"one"}, Metadata: map[string]any{"k": "v"}, StateKey: []byte("key"),
		ToolCapabilityGrants: map[string]agentctx.Grant{"t": {}}, Output: &spec, MaxRetries: new(2),
	}
	a, err := New(model.NewTestModel(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Instructions[0], o.Metadata["k"], o.StateKey[0] = "changed", "changed", 'x'
	o.ToolCapabilityGrants["u"] = agentctx.Grant{}
	o.Output.Name, *o.MaxRetries = "changed", 9
	if a.instructions[0] != "one" || a.metadata["k"] != "v" || string(a.stateKey) != "key" ||
		len(a.capabilityGrants) != 1 || a.outputSpec.Name != "" || *a.maxRetries != 2 {
		t.Fatalf("the agent follows its Options: %q %v %q %v %q %d", a.instructions, a.metadata, a.stateKey,
			a.capabilityGrants, a.outputSpec.Name, *a.maxRetries)
	}
}

// New refuses what the Builder refuses, with the same error.
func TestNewValidation(t *testing.T) {
	m := model.NewTestModel()
	scope, err := artifact.ParseScope("tenant-1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		build func(*Builder) *Builder
		opts  Options
		is    error
	}{
		{"MaxRetries", func(b *Builder) *Builder { return b.MaxRetries(-1) }, Options{MaxRetries: new(-1)}, ErrConfig},
		{"Timeout", func(b *Builder) *Builder { return b.Timeout(-time.Second) }, Options{Timeout: -time.Second}, ErrConfig},
		{"DefaultEffect", func(b *Builder) *Builder { return b.DefaultEffect("sometimes") },
			Options{DefaultEffect: "sometimes"}, ErrConfig},
		{"UsageLimits", func(b *Builder) *Builder { return b.UsageLimits(UsageLimits{ToolCallsLimit: -1}) },
			Options{UsageLimits: UsageLimits{ToolCallsLimit: -1}}, ErrInvalidLimit},
		{"Settings", func(b *Builder) *Builder { return b.Settings(model.Settings{Temperature: new(3.0)}) },
			Options{Settings: model.Settings{Temperature: new(3.0)}}, ErrInvalidSettings},
		{"OutputRetries", func(b *Builder) *Builder { return b.OutputRetries(-1) }, Options{OutputRetries: new(-1)}, ErrConfig},
		{"StateKey", func(b *Builder) *Builder { return b.StateKey([]byte{}) }, Options{StateKey: []byte{}}, ErrConfig},
		{"EffectJournal store", func(b *Builder) *Builder { return b.EffectJournal(nil) },
			Options{EffectJournal: &effect.Journal{}}, ErrConfig},
		{"EffectJournal recovery", func(b *Builder) *Builder {
			return b.EffectJournal(effect.NewMemoryStore(), JournalRecovery("sometimes"))
		}, Options{EffectJournal: &effect.Journal{Store: effect.NewMemoryStore(), Recovery: "sometimes"}}, ErrConfig},
		{"Intents", func(b *Builder) *Builder { return b.Intents(&intent.Realiser{}) },
			Options{Intents: &intent.Realiser{}}, ErrConfig},
		{"Artifacts store", func(b *Builder) *Builder { return b.Artifacts(scope, nil) },
			Options{ArtifactScope: scope}, ErrConfig},
		{"Artifacts scope", func(b *Builder) *Builder {
			return b.Artifacts(artifact.Scope{}, artifact.NewMemoryStore(artifact.Config{}))
		},
			Options{ArtifactStore: artifact.NewMemoryStore(artifact.Config{})}, ErrConfig},
		{"ArtifactResolveLimit", func(b *Builder) *Builder { return b.ArtifactResolveLimit(-1) },
			Options{ArtifactResolveLimit: -1}, ErrConfig},
		{"MaxToolOutputBytes", func(b *Builder) *Builder { return b.MaxToolOutputBytes(-1) },
			Options{MaxToolOutputBytes: -1}, ErrConfig},
		{"OutputBudget", func(b *Builder) *Builder { return b.OutputBudget(OutputBudget{MaxBytes: 10, HeadBytes: 20}) },
			Options{OutputBudget: OutputBudget{MaxBytes: 10, HeadBytes: 20}}, ErrConfig},
		{"ToolErrorPolicy", func(b *Builder) *Builder { return b.ToolErrorPolicy(7) }, Options{ToolErrorPolicy: 7}, ErrConfig},
		{"duplicate tool", func(b *Builder) *Builder { return b.Tool(echoTool("t"), echoTool("t")) },
			Options{Tools: []tool.Tool{echoTool("t"), echoTool("t")}}, ErrConfig},
		{"output tool name", func(b *Builder) *Builder {
			return b.Tool(echoTool("final_result")).Output(OutputSpec{Schema: map[string]any{"type": "object"}})
		}, Options{Tools: []tool.Tool{echoTool("final_result")}, Output: &OutputSpec{Schema: map[string]any{"type": "object"}}}, ErrConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, want := c.build(NewBuilder(m)).Build()
			_, got := New(m, c.opts)
			if want == nil || got == nil {
				t.Fatalf("Build: %v, New: %v", want, got)
			}
			if got.Error() != want.Error() || !errors.Is(got, c.is) {
				t.Fatalf("New: %v, Build: %v (want %v)", got, want, c.is)
			}
		})
	}
	_, got := New(nil, Options{})
	if _, want := NewBuilder(nil).Build(); !errors.Is(got, ErrConfig) || want == nil || got.Error() != want.Error() {
		t.Fatalf("New without a model: %v, Build: %v", got, want)
	}
}
