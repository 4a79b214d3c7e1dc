package catalog_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Two proxies over members with the same tool names live in one agent
// once toolset.Prefixed wraps them: each surface is prefixed, each call
// tool dispatches to its own members, and each keeps its instructions.
func TestPrefixedProxiesCoexist(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(call("1", "workspace_search_tools", `{"query":"add integers"}`)),
		model.CallsResponse(call("2", "workspace_call_tool", `{"name":"add","arguments":{"a":1,"b":2}}`),
			call("3", "web_call_tool", `{"name":"add","arguments":{"a":2,"b":2}}`)),
		model.CallsResponse(call("4", "add", `{"a":1,"b":2}`), call("5", "workspace_add", `{"a":1,"b":2}`)),
		model.Response(model.TextPart("done")),
	)
	workspace := toolset.Prefixed("workspace", newProxy(t, library(), "", catalog.Options{}))
	web := toolset.Prefixed("web", newProxy(t, library(), "", catalog.Options{}))
	if workspace.Name() != "workspace_tool_proxy" || workspace.ID() != "workspace_tool_proxy" {
		t.Fatalf("prefixed proxy named %q, id %q", workspace.Name(), workspace.ID())
	}
	a := agent.NewBuilder(m).Toolset(workspace, web).MustBuild()
	var rec recorder
	s := a.NewSession()
	mustRun(t, s, "x", rec.handler())
	want := []string{"web_call_tool", "web_search_tools", "workspace_call_tool", "workspace_search_tools"}
	for i, names := range toolNames(m) {
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Fatalf("request %d listed %v, want %v", i, names, want)
		}
	}
	if got := rec.returns[0].Content.(string); !strings.Contains(got, `<tool name="add" toolset="math" namespace="math">`) {
		t.Fatalf("search results name the tools as the model calls them:\n%s", got)
	}
	for i, sum := range []string{"3", "4"} {
		if got := rec.returns[1+i]; got.IsError || fmt.Sprint(got.Content) != sum {
			t.Fatalf("call %d = %#v, want %v", i, got.Content, sum)
		}
	}
	for _, r := range rec.returns[3:5] {
		if r.ErrorKind() != tool.ErrorKindNotFound {
			t.Fatalf("direct call of a hidden tool %s: %v %v", r.Name, r.ErrorKind(), r.Content)
		}
	}
	msgs := m.Requests()[0].Messages
	ins := msgs[len(msgs)-1].Instructions
	for _, surface := range []string{"Use workspace_search_tools", "Use web_search_tools"} {
		if !strings.Contains(ins, surface) {
			t.Fatalf("instructions lack %q:\n%s", surface, ins)
		}
	}
}
