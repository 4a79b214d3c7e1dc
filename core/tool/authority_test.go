package tool_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/tool"
)

// authority is what one call received.
type authority struct {
	agent    bool
	named    []string
	host     []string
	context  []string
	handles  [4]bool // tool_search, tasks, usage, handoff
	shell    bool
	profile  tool.Profile
	typedDep bool
}

func authorityTool(name string, req *tool.Dependencies, seen map[string]authority) *tool.Function {
	f := tool.New(name, "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		_, typed := tool.Dependency[*clock](tc)
		seen[name] = authority{
			agent: tc.Agent != nil, named: tc.Deps.Names(), host: tc.HostCapabilities, context: tc.ContextCapabilities,
			handles: [4]bool{tc.Handles.ToolSearch != nil, tc.Handles.Tasks != nil, tc.Handles.Usage != nil, tc.Handles.Handoff != nil},
			shell:   tc.ShellEnv != nil, profile: tc.Profile, typedDep: typed,
		}
		return tool.Text("ok"), nil
	})
	if req != nil {
		f.WithDependencies(*req)
	}
	return f
}

func TestLeastAuthorityByProfileAndGrant(t *testing.T) {
	deps := &tool.Deps{}
	tool.Provide(deps, &clock{"noon"})
	deps.SetNamed("db", 1)
	deps.SetNamed("mail", 2)
	deps.SetNamed("secrets", 3)
	ts, tasks := agentctx.CapabilityToolSearch, agentctx.CapabilityTasks
	seen := map[string]authority{}
	r := mustRegistry(t,
		authorityTool("legacy", nil, seen),
		authorityTool("legacy_ctx", &tool.Dependencies{Profile: tool.ProfileLegacy, ContextCapabilities: []string{tasks}}, seen),
		authorityTool("filtered", &tool.Dependencies{Profile: tool.ProfileFiltered, HostCapabilities: []string{"db"}, ContextCapabilities: []string{ts, "starweaver.context.unknown"}}, seen),
		authorityTool("filtered_shell", &tool.Dependencies{Profile: tool.ProfileFiltered, ShellEnvironment: true}, seen),
		authorityTool("strict_ungranted", &tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"db"}, ContextCapabilities: []string{ts}, ShellEnvironment: true}, seen),
		authorityTool("strict", &tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"db", "mail"}, ContextCapabilities: []string{ts, tasks}, ShellEnvironment: true}, seen),
		authorityTool("strict_noshell", &tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"db"}}, seen),
	)
	actx := agentctx.New()
	actx.SetShellEnvironment(map[string]string{"HOME": "/home/agent"})
	// The grant names more than the tool asks for, and a name nobody knows:
	// the tool still receives only the intersection.
	actx.GrantToolCapabilities("strict", agentctx.Grant{
		HostCapabilities:    []string{"db", "secrets"},
		ContextCapabilities: []string{tasks, "starweaver.context.unknown"},
		ShellEnvironment:    true,
	})
	actx.GrantToolCapabilities("strict_noshell", agentctx.Grant{HostCapabilities: []string{"db"}, ShellEnvironment: true})
	base := &tool.Context{Deps: deps, Agent: actx}
	for _, n := range r.Names() {
		wantSuccess(t, r.Execute(context.Background(), base, call("1", n, `{}`)))
	}

	want := map[string]authority{
		"legacy":           {agent: true, named: []string{"db", "mail", "secrets"}, shell: true, profile: tool.ProfileLegacy, typedDep: true},
		"legacy_ctx":       {agent: true, named: []string{"db", "mail", "secrets"}, context: []string{tasks}, handles: [4]bool{false, true, false, false}, shell: true, profile: tool.ProfileLegacy, typedDep: true},
		"filtered":         {named: []string{"db"}, host: []string{"db"}, context: []string{ts}, handles: [4]bool{true, false, false, false}, profile: tool.ProfileFiltered, typedDep: true},
		"filtered_shell":   {named: nil, host: nil, shell: true, profile: tool.ProfileFiltered, typedDep: true},
		"strict_ungranted": {profile: tool.ProfileStrict},
		"strict":           {named: []string{"db"}, host: []string{"db"}, context: []string{tasks}, handles: [4]bool{false, true, false, false}, shell: true, profile: tool.ProfileStrict},
		"strict_noshell":   {named: []string{"db"}, host: []string{"db"}, profile: tool.ProfileStrict},
	}
	for name, w := range want {
		got := seen[name]
		if got.agent != w.agent || !slices.Equal(got.named, w.named) || !slices.Equal(got.host, w.host) || !slices.Equal(got.context, w.context) ||
			got.handles != w.handles || got.shell != w.shell || got.profile != w.profile || got.typedDep != w.typedDep {
			t.Errorf("%s received %+v\n want %+v", name, got, w)
		}
	}
	if base.Agent != actx || !slices.Equal(deps.Names(), []string{"db", "mail", "secrets"}) {
		t.Fatal("the shared base context was changed")
	}
}

func TestCallContextIsWhatExecutionGives(t *testing.T) {
	deps := &tool.Deps{}
	deps.SetNamed("db", 1)
	deps.SetNamed("mail", 2)
	actx := agentctx.New()
	actx.GrantToolCapabilities("strict", agentctx.Grant{HostCapabilities: []string{"db"}})
	seen := map[string]authority{}
	r := mustRegistry(t, authorityTool("strict", &tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"db", "mail"}}, seen))
	base := &tool.Context{Deps: deps, Agent: actx}
	wantSuccess(t, r.Execute(context.Background(), base, call("1", "strict", `{}`)))
	tc := r.CallContext(base, call("1", "strict", `{}`))
	if tc.Agent != nil || !slices.Equal(tc.Deps.Names(), seen["strict"].named) || !slices.Equal(tc.HostCapabilities, []string{"db"}) {
		t.Fatalf("CallContext gives agent=%v names=%v host=%v; execution gave %+v", tc.Agent != nil, tc.Deps.Names(), tc.HostCapabilities, seen["strict"])
	}
	// A name the registry does not know gets no authority at all.
	unknown := r.CallContext(base, call("2", "nope", `{}`))
	if unknown.Agent != nil || len(unknown.Deps.Names()) != 0 {
		t.Fatalf("unknown tool context = %+v", unknown)
	}
}

func TestMalformedProfileGetsNothingEvenWithAGrant(t *testing.T) {
	deps := &tool.Deps{}
	deps.SetNamed("db", 1)
	actx := agentctx.New()
	actx.GrantToolCapabilities("bad", agentctx.Grant{HostCapabilities: []string{"db"}, ShellEnvironment: true, ContextCapabilities: []string{agentctx.CapabilityTasks}})
	actx.SetShellEnvironment(map[string]string{"A": "b"})
	seen := map[string]authority{}
	bad := authorityTool("bad", nil, seen).WithMetadata(map[string]any{tool.MetaDependencies: map[string]any{"profile": "filtered", "host_capabilities": "db"}})
	r := mustRegistry(t, bad)
	wantSuccess(t, r.Execute(context.Background(), &tool.Context{Deps: deps, Agent: actx}, call("1", "bad", `{}`)))
	if got := seen["bad"]; got.agent || len(got.named) > 0 || got.shell || got.handles != [4]bool{} || got.profile != tool.ProfileStrict {
		t.Fatalf("malformed profile received %+v", got)
	}
}

func TestDepsWithNamed(t *testing.T) {
	d := &tool.Deps{}
	tool.Provide(d, &clock{"noon"})
	d.SetNamed("a", 1)
	out := d.WithNamed(map[string]any{"a": 2, "b": 3})
	if v, _ := out.Named("a"); v != 2 {
		t.Fatalf("a = %v, want the added value", v)
	}
	if v, _ := d.Named("a"); v != 1 || len(d.Names()) != 1 {
		t.Fatal("WithNamed changed its receiver")
	}
	if _, ok := tool.Dependency[*clock](&tool.Context{Deps: out}); !ok {
		t.Fatal("typed dependencies are kept")
	}
	if d.WithNamed(nil) != d {
		t.Fatal("nothing to add returns the receiver")
	}
	var none *tool.Deps
	if got := none.WithNamed(map[string]any{"x": 1}); !maps.Equal(map[string]bool{"x": true}, namesSet(got.Names())) {
		t.Fatalf("names = %v", got.Names())
	}
}

func namesSet(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}
