package tool_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Every profile receives the run's limits and its own budgets; only a
// Legacy call's snapshot holds the shell values, and a Filtered tool that
// asks for the shell environment gets it through ShellEnv alone.
func TestRuntimeSnapshotByProfile(t *testing.T) {
	seen := map[string]tool.RuntimeSnapshot{}
	shellEnv := map[string]map[string]string{}
	mk := func(name string, req *tool.Dependencies) *tool.Function {
		f := tool.New(name, "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			seen[name] = tc.Runtime
			shellEnv[name] = tc.ShellEnv
			// A tool changing its snapshot changes nothing else.
			if tc.Runtime.ShellEnvironment != nil {
				tc.Runtime.ShellEnvironment["HOME"] = "/tmp/elsewhere"
			}
			return tool.Text("ok"), nil
		})
		if req != nil {
			f.WithDependencies(*req)
		}
		return f
	}
	r := mustRegistry(t,
		mk("legacy", nil).WithMaxRetries(5).WithTimeout(2*time.Second),
		mk("filtered", &tool.Dependencies{Profile: tool.ProfileFiltered}),
		mk("filtered_shell", &tool.Dependencies{Profile: tool.ProfileFiltered, ShellEnvironment: true}),
		mk("strict", &tool.Dependencies{Profile: tool.ProfileStrict, ShellEnvironment: true}),
	)
	actx := agentctx.New()
	actx.SetShellEnvironment(map[string]string{"HOME": "/home/agent"})
	actx.GrantToolCapabilities("strict", agentctx.Grant{ShellEnvironment: true})
	limits := tool.RunLimits{RequestLimit: 7, ToolCallsLimit: 3, TotalTokensLimit: 1000}
	base := &tool.Context{Agent: actx, Runtime: tool.RuntimeSnapshot{Limits: limits, MaxRetries: 99}}
	for _, n := range r.Names() {
		wantSuccess(t, r.Execute(context.Background(), base, call("1", n, `{}`)))
	}
	legacy := seen["legacy"]
	if legacy.Limits != limits || legacy.MaxRetries != 5 || legacy.TimeoutMS != 2000 ||
		!maps.Equal(legacy.ShellEnvironment, map[string]string{"HOME": "/tmp/elsewhere"}) {
		t.Fatalf("legacy snapshot = %+v", legacy)
	}
	for _, n := range []string{"filtered", "filtered_shell", "strict"} {
		if s := seen[n]; s.Limits != limits || s.ShellEnvironment != nil || s.MaxRetries != 3 {
			t.Errorf("%s snapshot = %+v: limits, the default budget and no shell values", n, s)
		}
	}
	if shellEnv["filtered"] != nil || shellEnv["filtered_shell"]["HOME"] != "/home/agent" || shellEnv["strict"]["HOME"] != "/home/agent" {
		t.Fatalf("dedicated shell environment: %v", shellEnv)
	}
	if got := actx.ShellEnvironment()["HOME"]; got != "/home/agent" {
		t.Fatalf("a tool changed the session's shell environment through its snapshot: %q", got)
	}
	if tc := r.CallContext(base, call("2", "filtered", `{}`)); tc.Runtime.Limits != limits || tc.Runtime.ShellEnvironment != nil {
		t.Fatalf("CallContext snapshot = %+v", tc.Runtime)
	}
}
