package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func newProxy(t *testing.T, members []toolset.Toolset, prefix string, opts catalog.Options) *catalog.Proxy {
	t.Helper()
	p, err := catalog.NewProxy(members, prefix, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProxySearchesAndCallsThroughTheRegistry(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(call("1", "search_tools", `{"query":"add integers"}`)),
		model.CallsResponse(call("2", "call_tool", `{"name":"add","arguments":{"a":1,"b":2}}`)),
		model.CallsResponse(call("3", "call_tool", `{"name":"add","arguments":{"a":"x"}}`)),
		model.CallsResponse(call("4", "add", `{"a":1,"b":2}`), call("5", "call_tool", `{"name":"nope"}`), call("6", "call_tool", `{"name":" "}`)),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(newProxy(t, library(), "", catalog.Options{})).MustBuild()
	s := a.NewSession()
	var rec recorder
	mustRun(t, s, "x", rec.handler())
	for i, names := range toolNames(m) {
		if !slices.Equal(names, []string{"call_tool", "search_tools"}) {
			t.Fatalf("request %d listed %v", i, names)
		}
	}
	results := rec.returns[0].Content.(string)
	if !strings.HasPrefix(results, `<search-results query="add integers" count="`) ||
		!strings.Contains(results, `<tool name="add" toolset="math" namespace="math">`) ||
		!strings.Contains(results, `<parameters>{"properties":`) {
		t.Fatalf("search results:\n%s", results)
	}
	if got := rec.returns[1]; got.IsError || got.Content != float64(3) && got.Content != 3 {
		t.Fatalf("call_tool(add) = %#v", got.Content)
	}
	invalid := rec.returns[2].Content.(string)
	if !strings.HasPrefix(invalid, "<tool-call-error tool=\"add\">\n<message>") || !strings.Contains(invalid, "<parameters>") {
		t.Fatalf("invalid arguments:\n%s", invalid)
	}
	if k := rec.returns[3].ErrorKind(); k != tool.ErrorKindNotFound {
		t.Fatalf("direct call of a hidden tool: %v %v", k, rec.returns[3].Content)
	}
	if got := rec.returns[4].Content; got != `<error>Tool "nope" not found. Use search_tools to discover available tools.</error>` {
		t.Fatalf("unknown name: %v", got)
	}
	if got := rec.returns[5].Content; got != `<error>Parameter 'name' is required.</error>` {
		t.Fatalf("blank name: %v", got)
	}
	if tools, _ := s.Context().ToolSearchLoaded(); !slices.Contains(tools, "add") {
		t.Fatalf("loaded %v", tools)
	}
}

func TestProxyPrefixUsesAFixedSurface(t *testing.T) {
	p := newProxy(t, library(), " _workspace_ ", catalog.Options{})
	if p.SearchToolName() != "workspace_search_tool" || p.CallToolName() != "workspace_call_tool" {
		t.Fatalf("names %s %s", p.SearchToolName(), p.CallToolName())
	}
	if ins := p.Instructions(nil); ins[0].Group != "workspace-tool-proxy" {
		t.Fatalf("group %q", ins[0].Group)
	}
	for _, bad := range []string{"1ws", "work space", "wörk"} {
		if _, err := catalog.NewProxy(library(), bad, catalog.Options{}); !errors.Is(err, catalog.ErrPrefix) {
			t.Errorf("prefix %q: %v", bad, err)
		}
	}
	if p := newProxy(t, library(), "__", catalog.Options{}); p.SearchToolName() != "search_tools" {
		t.Fatalf("empty prefix gave %s", p.SearchToolName())
	}
	m := model.NewTestModel(
		model.CallsResponse(call("1", "workspace_search_tool", `{"query":"weather"}`)),
		model.CallsResponse(call("2", "workspace_call_tool", `{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}`)),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(p).MustBuild()
	var rec recorder
	s := a.NewSession()
	mustRun(t, s, "x", rec.handler())
	if got := toolNames(m)[1]; !slices.Equal(got, []string{"workspace_call_tool", "workspace_search_tool"}) {
		t.Fatalf("listed %v", got)
	}
	if !strings.Contains(rec.returns[0].Content.(string), `<tool name="weather" toolset="misc">`) {
		t.Fatalf("loose tool result %v", rec.returns[0].Content)
	}
	if got, _ := json.Marshal(rec.returns[1].Content); string(got) != `{"city":"Oslo"}` {
		t.Fatalf("arguments given as a JSON string: %s", got)
	}
	if tools, _ := s.Context().ToolSearchLoaded(); !slices.Equal(tools, []string{"weather"}) {
		t.Fatalf("loaded %v", tools)
	}
}

func TestProxyNamespaceDescriptionsAreSearched(t *testing.T) {
	p := newProxy(t, library(), "", catalog.Options{NamespaceDescriptions: map[string]string{"math": "Arithmetic calculator"}})
	m := model.NewTestModel(
		model.CallsResponse(call("1", "search_tools", `{"query":"calculator"}`)),
		model.Response(model.TextPart("done")),
	)
	var rec recorder
	mustRun(t, agent.NewBuilder(m).Toolset(p).MustBuild().NewSession(), "x", rec.handler())
	got := rec.returns[0].Content.(string)
	if !strings.Contains(got, `count="2"`) || !strings.Contains(got, `name="add"`) || !strings.Contains(got, `name="multiply"`) {
		t.Fatalf("results:\n%s", got)
	}
	if !strings.Contains(p.Instructions(nil)[0].Content, "- math: Arithmetic calculator (2 tools)") {
		t.Fatalf("instructions %q", p.Instructions(nil)[0].Content)
	}
}

func TestProxyApprovalPausesAndTheApprovedCallToolRunsTheTool(t *testing.T) {
	var ran atomic.Int32
	deploy := tool.New("deploy", "Deploy the service.", object("env"), func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("deployed " + string(args)), nil
	})
	ops := toolset.ApprovalRequired(toolset.New("ops", deploy).WithID("ops"), "deploy")
	m := model.NewTestModel(
		model.CallsResponse(call("1", "call_tool", `{"name":"deploy","arguments":{"env":"prod"}}`)),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(newProxy(t, []toolset.Toolset{ops}, "", catalog.Options{})).MustBuild()
	s := a.NewSession()
	res := mustRun(t, s, "deploy")
	if res.Status != agent.StatusWaiting || ran.Load() != 0 {
		t.Fatalf("status %s, ran %d", res.Status, ran.Load())
	}
	pending := s.Pending()
	if len(pending) != 1 || pending[0].ToolName != "call_tool" || pending[0].Metadata["proxied_tool"] != "deploy" {
		t.Fatalf("pending %+v", pending)
	}
	var rec recorder
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: pending[0].ID, Approved: true}}}, rec.handler())
	if err != nil || res.Output != "done" || ran.Load() != 1 {
		t.Fatalf("resume: %v %v ran %d", res, err, ran.Load())
	}
	if got := rec.returns[0]; got.IsError || got.Content != `deployed {"env":"prod"}` {
		t.Fatalf("approved call_tool returned %#v", got.Content)
	}

	// A person's override of call_tool's arguments reaches the tool.
	m2 := model.NewTestModel(
		model.CallsResponse(call("1", "call_tool", `{"name":"deploy","arguments":{"env":"prod"}}`)),
		model.Response(model.TextPart("done")),
	)
	s = agent.NewBuilder(m2).Toolset(newProxy(t, []toolset.Toolset{ops}, "", catalog.Options{})).MustBuild().NewSession()
	mustRun(t, s, "deploy")
	override := agent.ApprovalDecision{ID: s.Pending()[0].ID, Approved: true,
		OverrideArguments: json.RawMessage(`{"name":"deploy","arguments":{"env":"staging"}}`)}
	rec = recorder{}
	if _, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{override}}, rec.handler()); err != nil {
		t.Fatal(err)
	}
	if got := rec.returns[0].Content; got != `deployed {"env":"staging"}` {
		t.Fatalf("overridden call_tool returned %#v", got)
	}
}

func TestProxiedCallsKeepTheirTimeoutAndDefaults(t *testing.T) {
	slow := tool.New("slow", "Never answers.", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	})
	members := []toolset.Toolset{toolset.New("slow", slow).WithID("slow").WithTimeout(20 * time.Millisecond).WithMaxRetries(0)}
	m := model.NewTestModel(
		model.CallsResponse(call("1", "call_tool", `{"name":"slow"}`)),
		model.Response(model.TextPart("done")),
	)
	var rec recorder
	mustRun(t, agent.NewBuilder(m).Toolset(newProxy(t, members, "", catalog.Options{})).MustBuild().NewSession(), "x", rec.handler())
	if got := rec.returns[0].Content.(string); !strings.Contains(got, "exceeded 20ms") {
		t.Fatalf("timeout result %q", got)
	}
}

// served is a member toolset backed by a resource: its tools can only be
// read between Enter and Exit, as an MCP server's.
type served struct {
	mu    sync.Mutex
	open  bool
	calls []string
}

func (s *served) Name() string                                        { return "served" }
func (s *served) ID() string                                          { return "served_ns" }
func (s *served) Instructions(*tool.RunContext) []toolset.Instruction { return nil }
func (s *served) Defaults() toolset.Defaults                          { return toolset.Defaults{} }
func (s *served) Enter(context.Context, *tool.RunContext) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open = true
	s.calls = append(s.calls, "enter")
	return nil
}
func (s *served) Exit(context.Context, *tool.RunContext) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open = false
	s.calls = append(s.calls, "exit")
	return nil
}
func (s *served) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "tools")
	if !s.open {
		return nil, errors.New("not connected")
	}
	return []tool.Tool{tool.New("remote_echo", "Echo a text from the remote server.", nil,
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("echoed"), nil
		})}, nil
}

// A catalogue over a member with a lifecycle is managed like the member:
// building the agent reads nothing, each run enters the member before the
// catalogue reads it and exits it when the run ends, and call_tool reaches
// the member's tools.
func TestCatalogueEntersAndExitsItsMembersWithTheRun(t *testing.T) {
	member := &served{}
	proxy, err := catalog.NewProxy([]toolset.Toolset{member}, "", catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewTestModel(
		model.CallsResponse(call("1", "call_tool", `{"name":"remote_echo","arguments":{}}`)),
		model.Response(model.TextPart("done")),
		model.CallsResponse(call("2", "call_tool", `{"name":"remote_echo","arguments":{}}`)),
		model.Response(model.TextPart("again")),
	)
	a := agent.NewBuilder(m).Toolset(proxy).MustBuild()
	if len(member.calls) != 0 {
		t.Fatalf("building the agent used the member: %v", member.calls)
	}
	s := a.NewSession()
	for _, prompt := range []string{"one", "two"} {
		res := mustRun(t, s, prompt)
		if got := res.Returns()[0]; got.IsError || got.Content != "echoed" {
			t.Fatalf("call_tool returned %+v", got)
		}
	}
	want := []string{"enter", "tools", "exit", "enter", "tools", "exit"}
	if !slices.Equal(member.calls, want) {
		t.Fatalf("member calls %v, want %v", member.calls, want)
	}
}

// search_tools answers a blank query and a query that matches nothing with
// the reference's texts, and escapes what it quotes from queries and tool
// descriptions.
func TestProxySearchTextsAndEscaping(t *testing.T) {
	odd := tool.New("odd_tool", `Compare <a> & "b".`, object("x"), echo)
	members := append(library(), toolset.New("odd", odd).WithID("odd"))
	m := model.NewTestModel(
		model.CallsResponse(call("1", "search_tools", `{"query":"  "}`)),
		model.CallsResponse(call("2", "search_tools", `{"query":"zzqx\"<"}`)),
		model.CallsResponse(call("3", "search_tools", `{"query":"compare"}`)),
		model.Response(model.TextPart("done")),
	)
	var rec recorder
	mustRun(t, agent.NewBuilder(m).Toolset(newProxy(t, members, "", catalog.Options{})).MustBuild().NewSession(), "x", rec.handler())
	if got := rec.returns[0].Content; got != "<error>Parameter 'query' is required.</error>" || rec.returns[0].IsError {
		t.Fatalf("blank query: %#v", rec.returns[0])
	}
	want := "<search-results query=\"zzqx&quot;&lt;\" count=\"0\">\nNo tools found matching query. Try different keywords.\n</search-results>"
	if got := rec.returns[1].Content; got != want {
		t.Fatalf("no match:\n%v\nwant:\n%s", got, want)
	}
	if got := rec.returns[2].Content.(string); !strings.Contains(got, "<description>Compare &lt;a&gt; &amp; \"b\".</description>") {
		t.Fatalf("description not escaped as text:\n%s", got)
	}
	if !rec.has(catalog.EventFailed) || !rec.has(catalog.EventNoMatch) {
		t.Fatalf("events %v", rec.kinds)
	}
}

// A call through call_tool is a call like any other: global and tool
// hooks run, an unexpected failure is retried inside the call (the model
// never sees it), and a deferred tool pauses the run until its result is
// given, which becomes call_tool's return.
func TestProxiedCallsRunHooksRetriesAndDeferral(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	var attempts atomic.Int32
	flaky := tool.New("flaky", "Fails once, then answers.", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		if attempts.Add(1) == 1 {
			return tool.Result{}, errors.New("transient")
		}
		return tool.Text("steady"), nil
	}).WithHook(tool.Hook{Name: "own", Before: func(_ context.Context, tc *tool.Context, _ map[string]any) error {
		note("own:" + tc.ToolName)
		return nil
	}})
	var built atomic.Int32
	build := tool.New("build", "Build the project on a worker.", object("target"), func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		built.Add(1)
		return tool.Text("built here"), nil
	})
	members := []toolset.Toolset{
		toolset.New("ops", flaky).WithID("ops"),
		toolset.Deferred(toolset.New("jobs", build).WithID("jobs"), "build"),
	}
	m := model.NewTestModel(
		model.CallsResponse(call("1", "call_tool", `{"name":"flaky"}`)),
		model.CallsResponse(call("2", "call_tool", `{"name":"build","arguments":{"target":"all"}}`)),
		model.Response(model.TextPart("done")),
	)
	global := tool.Hook{Name: "global", Before: func(_ context.Context, tc *tool.Context, _ map[string]any) error {
		note("global:" + tc.ToolName)
		return nil
	}}
	s := agent.NewBuilder(m).Hook(global).Toolset(newProxy(t, members, "", catalog.Options{})).MustBuild().NewSession()
	var rec recorder
	res := mustRun(t, s, "x", rec.handler())
	if got := rec.returns[0]; got.IsError || got.Content != "steady" || attempts.Load() != 2 {
		t.Fatalf("flaky through call_tool: %#v after %d attempts", got.Content, attempts.Load())
	}
	// call_tool's own call and the dispatched one each pass the global
	// hook; the tool's hook sees only its own.
	mu.Lock()
	got := slices.Clone(seen)
	mu.Unlock()
	for _, want := range []string{"global:call_tool", "global:flaky", "own:flaky"} {
		if !slices.Contains(got, want) {
			t.Fatalf("hooks saw %v, want %s among them", got, want)
		}
	}
	if slices.Contains(got, "own:call_tool") {
		t.Fatalf("the tool's hook ran for call_tool: %v", got)
	}

	if res.Status != agent.StatusWaiting || built.Load() != 0 {
		t.Fatalf("status %s, built %d", res.Status, built.Load())
	}
	pending := s.Pending()
	if len(pending) != 1 || pending[0].Kind != agent.PendingDeferred || pending[0].ToolName != "call_tool" ||
		pending[0].Metadata["proxied_tool"] != "build" {
		t.Fatalf("pending %+v", pending)
	}
	rec = recorder{}
	res, err := s.Resume(context.Background(), agent.Resolution{Deferred: []agent.DeferredResult{
		{ID: pending[0].ID, Status: agent.DeferredCompleted, Response: json.RawMessage(`"built on the worker"`)},
	}}, rec.handler())
	if err != nil || res.Output != "done" || built.Load() != 0 {
		t.Fatalf("resume: %v %v built %d", res, err, built.Load())
	}
	got0 := rec.returns[0]
	if body, _ := json.Marshal(got0.Content); got0.Name != "call_tool" || got0.IsError || string(body) != `"built on the worker"` {
		t.Fatalf("deferred call_tool returned %s (%+v)", body, got0)
	}
}

// The zero Options keep the defaults; set fields replace them, and the
// catalogue keeps its own copy of the descriptions.
func TestOptionsIDAndDescriptions(t *testing.T) {
	if id := catalog.NewSearch(library(), catalog.Options{}).ID(); id != catalog.SearchToolName {
		t.Fatalf("default search id %q", id)
	}
	if id := catalog.NewSearch(library(), catalog.Options{ID: "find"}).ID(); id != "find" {
		t.Fatalf("search id %q", id)
	}
	if id := newProxy(t, library(), "", catalog.Options{}).ID(); id != catalog.ProxyName {
		t.Fatalf("default proxy id %q", id)
	}
	descriptions := map[string]string{"math": "Arithmetic calculator"}
	p := newProxy(t, library(), "", catalog.Options{ID: "tools", NamespaceDescriptions: descriptions})
	descriptions["math"] = "changed"
	if p.ID() != "tools" {
		t.Fatalf("proxy id %q", p.ID())
	}
	if !strings.Contains(p.Instructions(nil)[0].Content, "- math: Arithmetic calculator (2 tools)") {
		t.Fatalf("instructions %q", p.Instructions(nil)[0].Content)
	}
}
