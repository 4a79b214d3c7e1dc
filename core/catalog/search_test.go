package catalog_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestSearchLoadsToolsForTheNextTurnAndSurvivesExport(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(call("1", "tool_search", `{"query":"documentation topic"}`)),
		model.CallsResponse(call("2", "lookup_docs", `{"topic":"go"}`)),
		model.Response(model.TextPart("done")),
		model.Response(model.TextPart("again")),
	)
	search := catalog.NewSearch(library(), catalog.Options{})
	a := agent.NewBuilder(m).Toolset(search).MustBuild()
	s := a.NewSession()
	var rec recorder
	res := mustRun(t, s, "find docs", rec.handler())
	if res.Output != "done" {
		t.Fatalf("output %q", res.Output)
	}
	got := toolNames(m)
	if !slices.Equal(got[0], []string{"tool_search"}) || !slices.Equal(got[1], []string{"lookup_docs", "tool_search"}) {
		t.Fatalf("listed tools per request: %v", got)
	}
	first := rec.returns[0].Content.(map[string]any)
	if first["message"] != "Loaded 1 tool(s) for the next model turn." {
		t.Fatalf("tool_search result %v", first)
	}
	loadedTools := first["loaded_tools"].([]any)
	if d := loadedTools[0].(map[string]any); d["name"] != "lookup_docs" || d["namespace"] != "docs_ns" || d["toolset"] != "docs" {
		t.Fatalf("loaded tool described as %v", d)
	}
	if rec.returns[1].IsError {
		t.Fatalf("direct call of the loaded tool failed: %v", rec.returns[1].Content)
	}
	for _, k := range []string{catalog.EventInitialized, catalog.EventLoaded} {
		if !rec.has(k) {
			t.Errorf("no %s event in %v", k, rec.kinds)
		}
	}
	// Unloaded tools wait to be discovered: they are not unavailable.
	if rec.has("tools_unavailable") {
		t.Errorf("unloaded tools were reported unavailable: %v", rec.kinds)
	}

	// The loaded state is part of the session's exported state.
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := a.SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	if tools, _ := restored.Context().ToolSearchLoaded(); !slices.Equal(tools, []string{"lookup_docs"}) {
		t.Fatalf("restored loaded tools %v", tools)
	}
	mustRun(t, restored, "again")
	if got := toolNames(m); !slices.Equal(got[3], []string{"lookup_docs", "tool_search"}) {
		t.Fatalf("restored session listed %v", got[3])
	}
}

func TestSearchNamespaceMatchLoadsTheNamespace(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(call("1", "tool_search", `{"query":"math"}`)),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(catalog.NewSearch(library(), catalog.Options{})).MustBuild()
	s := a.NewSession()
	mustRun(t, s, "x")
	tools, spaces := s.Context().ToolSearchLoaded()
	if !slices.Equal(spaces, []string{"math"}) || !slices.Contains(tools, "add") || !slices.Contains(tools, "multiply") {
		t.Fatalf("loaded %v %v", tools, spaces)
	}
	if got := toolNames(m)[1]; !slices.Equal(got, []string{"add", "multiply", "tool_search"}) {
		t.Fatalf("listed %v", got)
	}
}

func TestSearchBlankAndUnmatchedQueries(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(call("1", "tool_search", `{"query":"  "}`)),
		model.CallsResponse(call("2", "tool_search", `{"query":"zzqx"}`)),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(catalog.NewSearch(library(), catalog.Options{})).MustBuild()
	var rec recorder
	mustRun(t, a.NewSession(), "x", rec.handler())
	blank := rec.returns[0].Content.(map[string]any)
	if blank["error"] != "Parameter 'query' is required." || rec.returns[0].IsError {
		t.Fatalf("blank query: %v", rec.returns[0])
	}
	none := rec.returns[1].Content.(map[string]any)
	if none["message"] != `No tools found for query "zzqx". Try a different keyword, action, namespace, or parameter name.` {
		t.Fatalf("no match: %v", none)
	}
	if !rec.has(catalog.EventFailed) || !rec.has(catalog.EventNoMatch) || rec.has(catalog.EventLoaded) {
		t.Fatalf("events %v", rec.kinds)
	}
	if p := rec.payload[catalog.EventFailed][0]; p["error_kind"] != "empty_query" || p["search_tool_name"] != "tool_search" {
		t.Fatalf("failed payload %v", p)
	}
}

func TestSearchInstructionsAndReports(t *testing.T) {
	s := catalog.NewSearch(library(), catalog.Options{MaxResults: 2})
	ins := s.Instructions(nil)
	if len(ins) != 1 || ins[0].Group != "tool-search" || !contains(ins[0].Content, "- docs_ns (1 tools)", "- math (2 tools)") {
		t.Fatalf("instructions %+v", ins)
	}
	r := s.InitializationReport()
	if r.ToolsetName != "tool_search" || r.TotalTools != 4 || r.TotalNamespaces != 2 || r.LooseTools != 1 ||
		r.MaxResults != 2 || r.AvailabilityChecked || r.AvailableTools != 4 {
		t.Fatalf("report %+v", r)
	}
	if ns := r.Namespaces[1]; ns.Namespace != "math" || ns.Status != catalog.StatusConnected || ns.TotalTools != 2 {
		t.Fatalf("namespace report %+v", ns)
	}
	if !s.RefreshReport(nil).AvailabilityChecked {
		t.Fatal("RefreshReport did not check availability")
	}
	hidden := tool.New("hidden", "Prepared away.", nil, echo).WithPrepareDefinition(func(*tool.RunContext, tool.Definition) (tool.Definition, bool) {
		return tool.Definition{}, false
	})
	s = catalog.NewSearch(append(library(), toolset.New("ops", hidden).WithID("ops")), catalog.Options{})
	if r := s.RefreshReport(nil); r.UnavailableTools != 1 || r.Namespaces[2].UnavailableTools != 1 {
		t.Fatalf("a tool its prepare function hides counts as available: %+v", r)
	}
}

func TestHostAPIsOnTheLoadedState(t *testing.T) {
	available := true
	flaky := tool.New("flaky", "Sometimes there.", nil, echo).WithAvailability(func(*tool.RunContext) bool { return available })
	members := append(library(), toolset.New("ops", flaky).WithID("ops"))
	s := catalog.NewSearch(members, catalog.Options{})
	actx := agentctx.New()
	if _, err := s.PreloadNamespace(actx, "nope"); err == nil {
		t.Fatal("preloading an unknown namespace succeeded")
	}
	res, err := s.PreloadNamespace(actx, "ops")
	if err != nil || !slices.Equal(res.LoadedTools, []string{"flaky"}) {
		t.Fatalf("preload %+v %v", res, err)
	}
	actx.RecordToolSearchLoaded([]string{"gone"}, nil)
	available = false
	ref := s.RefreshLoadedState(actx)
	if !slices.Equal(ref.RemovedTools, []string{"flaky", "gone"}) || !slices.Equal(ref.RetainedNamespaces, []string{"ops"}) {
		t.Fatalf("refresh %+v", ref)
	}
	actx.RecordToolSearchLoaded([]string{"add", "elsewhere"}, []string{"math"})
	inv := s.InvalidateLoadedState(actx, "catalogue replaced")
	if !slices.Equal(inv.RemovedTools, []string{"add"}) || !slices.Equal(inv.RetainedTools, []string{"elsewhere"}) ||
		!slices.Equal(inv.RemovedNamespaces, []string{"ops", "math"}) {
		t.Fatalf("invalidate %+v", inv)
	}
	var kinds []string
	for _, ev := range actx.TakeEvents() {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == catalog.EventInvalidated && ev.Payload["reason"] != "catalogue replaced" {
			t.Fatalf("invalidated payload %v", ev.Payload)
		}
	}
	if !slices.Equal(kinds, []string{catalog.EventLoaded, catalog.EventRefreshed, catalog.EventInvalidated}) {
		t.Fatalf("events %v", kinds)
	}
}

func TestRefreshBindingIsDeterministic(t *testing.T) {
	b := catalog.RefreshBinding{IntervalMS: 1000, DebounceMS: 100}
	if _, due := b.Due(999); due {
		t.Fatal("due before the interval")
	}
	if reason, due := b.Due(1000); !due || reason != catalog.ReasonIntervalElapsed {
		t.Fatalf("at the interval: %q %v", reason, due)
	}
	b = b.Refreshed(1000).InventoryChanged(7, 1050).InventoryChanged(8, 1120)
	if _, due := b.Due(1149); due {
		t.Fatal("due inside the debounce")
	}
	if reason, due := b.Due(1150); !due || reason != catalog.ReasonInventoryChanged {
		t.Fatalf("after the debounce: %q %v", reason, due)
	}
	s := catalog.NewSearch(library(), catalog.Options{})
	actx := agentctx.New()
	_, kept, ran := s.RefreshLoadedStateIfDue(actx, b, 1150)
	if !ran || kept.InventoryVersion != 8 || kept.PendingVersion != 0 || kept.LastRefreshMS != 1150 {
		t.Fatalf("refresh if due: %v %+v", ran, kept)
	}
	ev := actx.TakeEvents()[0]
	if ev.Payload["refresh_scheduled"] != true || ev.Payload["refresh_reason"] != catalog.ReasonInventoryChanged ||
		ev.Payload["inventory_version"] != int64(8) || ev.Payload["refresh_ms"] != int64(1150) {
		t.Fatalf("scheduled refresh payload %v", ev.Payload)
	}
	if kept.InventoryChanged(8, 2000) != kept {
		t.Fatal("an already refreshed version became pending")
	}
	if _, _, ran := s.RefreshLoadedStateIfDue(actx, kept, 1200); ran {
		t.Fatal("refreshed when nothing was due")
	}
}

func TestSearchToolWithoutTheCapabilityIsAUserError(t *testing.T) {
	s := catalog.NewSearch(library(), catalog.Options{})
	tools, _ := s.Tools(nil)
	_, err := tools[0].Call(context.Background(), &tool.Context{}, json.RawMessage(`{"query":"x"}`))
	if tool.KindOf(err) != tool.ErrorKindUserError {
		t.Fatalf("err %v", err)
	}
}

func contains(s string, subs ...string) bool {
	for _, x := range subs {
		if !stringsContains(s, x) {
			return false
		}
	}
	return true
}

// A model that guesses the name of a tool it has not loaded is refused
// before the tool runs, and an agent that fails runs on unavailable tools
// still runs with a catalogue of unloaded ones.
func TestUnloadedToolsAreRefusedAndNotUnavailable(t *testing.T) {
	m := model.NewTestModel(
		model.CallsResponse(call("1", "lookup_docs", `{"topic":"go"}`)),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(catalog.NewSearch(library(), catalog.Options{})).UnavailableTools(agent.FailOnUnavailable).MustBuild()
	res := mustRun(t, a.NewSession(), "guess")
	ret := res.Returns()[0]
	body, _ := json.Marshal(ret.Content)
	if ret.ErrorKind() != tool.ErrorKindUserError || !strings.Contains(string(body), "not loaded") {
		t.Fatalf("a guessed unloaded tool returned %+v", ret)
	}
}
