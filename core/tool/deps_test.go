package tool_test

import (
	"context"
	"encoding/json"
	"github.com/starweaver-go/starweaver/core/agentctx"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestParseDependencies(t *testing.T) {
	strict := tool.Dependencies{Profile: tool.ProfileStrict}
	tests := []struct {
		name string
		md   map[string]any
		want tool.Dependencies
	}{
		{"absent is legacy", nil, tool.Dependencies{Profile: tool.ProfileLegacy}},
		{"absent key is legacy", map[string]any{"other": 1}, tool.Dependencies{Profile: tool.ProfileLegacy}},
		{"filtered", map[string]any{tool.MetaDependencies: map[string]any{
			"profile": "filtered", "host_capabilities": []any{"db", "clock"}, "shell_environment": true, "unknown": 1}},
			tool.Dependencies{Profile: tool.ProfileFiltered, HostCapabilities: []string{"db", "clock"}, ShellEnvironment: true}},
		{"strict with context caps", map[string]any{tool.MetaDependencies: map[string]any{
			"profile": "strict", "host_capabilities": []any{}, "context_capabilities": []any{"starweaver.context.usage"}, "shell_environment": false}},
			tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{}, ContextCapabilities: []string{"starweaver.context.usage"}}},
		{"explicit legacy", map[string]any{tool.MetaDependencies: map[string]any{"profile": "legacy", "shell_environment": false}},
			tool.Dependencies{Profile: tool.ProfileLegacy}},
		{"null value", map[string]any{tool.MetaDependencies: nil}, strict},
		{"not an object", map[string]any{tool.MetaDependencies: "filtered"}, strict},
		{"unknown profile", map[string]any{tool.MetaDependencies: map[string]any{"profile": "admin", "shell_environment": false}}, strict},
		{"missing profile", map[string]any{tool.MetaDependencies: map[string]any{"shell_environment": false}}, strict},
		{"host caps not a list", map[string]any{tool.MetaDependencies: map[string]any{"profile": "filtered", "host_capabilities": "db", "shell_environment": false}}, strict},
		{"host caps not strings", map[string]any{tool.MetaDependencies: map[string]any{"profile": "filtered", "host_capabilities": []any{1}, "shell_environment": false}}, strict},
		{"bad context caps", map[string]any{tool.MetaDependencies: map[string]any{"profile": "filtered", "context_capabilities": 3, "shell_environment": false}}, strict},
		{"missing shell_environment", map[string]any{tool.MetaDependencies: map[string]any{"profile": "filtered"}}, strict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tool.ParseDependencies(tt.md)
			if got.Profile != tt.want.Profile || got.ShellEnvironment != tt.want.ShellEnvironment ||
				!slices.Equal(got.HostCapabilities, tt.want.HostCapabilities) ||
				!slices.Equal(got.ContextCapabilities, tt.want.ContextCapabilities) {
				t.Fatalf("ParseDependencies = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWithDependenciesRoundTrip(t *testing.T) {
	req := tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"db"}, ContextCapabilities: []string{"starweaver.context.tasks"}, ShellEnvironment: true}
	f := tool.New("t", "", nil, okHandler).WithDependencies(req)
	// Through JSON, as a host in another language would see it.
	var md map[string]any
	if err := json.Unmarshal([]byte(mustJSON(t, f.Definition().Metadata)), &md); err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{f.Definition().Metadata, md} {
		got := tool.ParseDependencies(m)
		if got.Profile != req.Profile || !slices.Equal(got.HostCapabilities, req.HostCapabilities) ||
			!slices.Equal(got.ContextCapabilities, req.ContextCapabilities) || !got.ShellEnvironment {
			t.Fatalf("round trip = %+v", got)
		}
	}
	// The requirement slices are copied.
	req.HostCapabilities[0] = "changed"
	if tool.ParseDependencies(f.Definition().Metadata).HostCapabilities[0] != "db" {
		t.Fatal("WithDependencies aliases the caller's slice")
	}
}

type clock struct{ now string }

func TestDepsContainer(t *testing.T) {
	var d tool.Deps
	if _, ok := d.Named("x"); ok {
		t.Fatal("zero Deps has a named dependency")
	}
	tool.Provide(&d, &clock{"noon"})
	tool.Provide[fmtStringer](&d, clock{"iface"})
	d.SetNamed("b", 2)
	d.SetNamed("a", 1)
	if !slices.Equal(d.Names(), []string{"a", "b"}) {
		t.Fatalf("Names = %v, want sorted", d.Names())
	}
	tc := &tool.Context{Deps: &d}
	if c, ok := tool.Dependency[*clock](tc); !ok || c.now != "noon" {
		t.Fatal("typed dependency")
	}
	if s, ok := tool.Dependency[fmtStringer](tc); !ok || s.String() != "iface" {
		t.Fatal("interface dependency")
	}
	if _, ok := tool.Dependency[clock](tc); ok {
		t.Fatal("value type found under pointer type")
	}
	if _, ok := tool.Dependency[*clock](nil); ok {
		t.Fatal("nil context")
	}
	if _, ok := tool.Dependency[*clock](&tool.Context{}); ok {
		t.Fatal("nil deps")
	}
	var nilDeps *tool.Deps
	if _, ok := nilDeps.Named("a"); ok || nilDeps.Names() != nil {
		t.Fatal("nil Deps")
	}
}

type fmtStringer interface{ String() string }

func (c clock) String() string { return c.now }

type depView struct {
	typed bool
	named []string
}

func TestDependencyProfilesAtExecution(t *testing.T) {
	deps := &tool.Deps{}
	tool.Provide(deps, &clock{"noon"})
	deps.SetNamed("db", "db-handle")
	deps.SetNamed("secrets", "vault")
	deps.SetNamed("mail", "smtp")

	views := map[string]depView{}
	mk := func(name string, req *tool.Dependencies) tool.Tool {
		f := tool.New(name, "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			_, typed := tool.Dependency[*clock](tc)
			var named []string
			for _, n := range []string{"db", "mail", "secrets"} {
				if _, ok := tc.Deps.Named(n); ok {
					named = append(named, n)
				}
			}
			views[name] = depView{typed, named}
			return tool.Text("ok"), nil
		})
		if req != nil {
			f.WithDependencies(*req)
		}
		return f
	}
	r := mustRegistry(t,
		mk("legacy", nil),
		mk("filtered", &tool.Dependencies{Profile: tool.ProfileFiltered, HostCapabilities: []string{"db", "absent"}}),
		mk("strict", &tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"mail"}}),
	)
	// A malformed declaration fails closed to strict with nothing.
	r2 := mustRegistry(t, tool.New("malformed", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		_, typed := tool.Dependency[*clock](tc)
		views["malformed"] = depView{typed: typed, named: tc.Deps.Names()}
		return tool.Text("ok"), nil
	}).WithMetadata(map[string]any{tool.MetaDependencies: "everything please"}))

	// Strict receives what it asks for only where its grant allows it.
	actx := agentctx.New()
	actx.GrantToolCapabilities("strict", agentctx.Grant{HostCapabilities: []string{"mail", "db"}})
	base := &tool.Context{Deps: deps, Agent: actx}
	for _, n := range []string{"legacy", "filtered", "strict"} {
		wantSuccess(t, r.Execute(context.Background(), base, call("1", n, `{}`)))
	}
	wantSuccess(t, r2.Execute(context.Background(), base, call("1", "malformed", `{}`)))

	want := map[string]depView{
		"legacy":    {true, []string{"db", "mail", "secrets"}},
		"filtered":  {true, []string{"db"}},
		"strict":    {false, []string{"mail"}},
		"malformed": {false, nil},
	}
	for name, w := range want {
		got := views[name]
		if got.typed != w.typed || !slices.Equal(got.named, w.named) {
			t.Errorf("%s sees typed=%v named=%v, want typed=%v named=%v", name, got.typed, got.named, w.typed, w.named)
		}
	}
	// The shared container was not narrowed.
	if !slices.Equal(deps.Names(), []string{"db", "mail", "secrets"}) {
		t.Fatalf("base deps changed: %v", deps.Names())
	}
	// Narrowed tools still work without any dependencies at all.
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "strict", `{}`)))
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "filtered", `{}`)))
}
