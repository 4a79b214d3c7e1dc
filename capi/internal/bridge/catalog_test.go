package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

const catalogMembers = `"combined":[
	{"name":"docs","id":"docs_ns","tools":[{"id":1,"definition":{"name":"lookup_docs","description":"Look up documentation","parameters":{"type":"object","properties":{"topic":{"type":"string"}}}}}]},
	{"name":"math","id":"math","tools":[{"id":2,"definition":{"name":"add"}},{"id":3,"definition":{"name":"multiply"}}],"layers":[{"kind":"prefixed","prefix":"m"}]}]`

func TestCatalogSpecsBuildCatalogues(t *testing.T) {
	names, err := toolNames(t, `[{"name":"search",`+catalogMembers+`,"catalog":{"kind":"tool_search","max_results":2}}]`)
	if err != nil || !slices.Equal(names, []string{"tool_search", "lookup_docs", "m_add", "m_multiply"}) {
		t.Fatalf("tool_search: %v %v", names, err)
	}
	names, err = toolNames(t, `[{"name":"proxy",`+catalogMembers+`,"catalog":{"kind":"tool_proxy","prefix":"workspace"},"layers":[{"kind":"metadata","metadata":{"x":1}}]}]`)
	if err != nil || !slices.Equal(names[:2], []string{"workspace_search_tool", "workspace_call_tool"}) || len(names) != 5 {
		t.Fatalf("tool_proxy: %v %v", names, err)
	}
	for spec, want := range map[string]string{
		`[{"name":"c",` + catalogMembers + `,"catalog":{"kind":"index"}}]`:                                                      `unknown catalog kind "index"`,
		`[{"name":"c",` + catalogMembers + `,"catalog":{"kind":"tool_proxy","prefix":"9x"}}]`:                                   "invalid tool proxy name prefix",
		`[{"name":"c",` + catalogMembers + `,"catalog":{"kind":"tool_search","prefix":"x"}}]`:                                   "takes no prefix",
		`[{"name":"c",` + catalogMembers + `,"catalog":{"kind":"tool_search","max_results":-1}}]`:                               "must not be negative",
		`[{"name":"c","combined":[{"name":"x","tools":[{"id":1,"definition":{"name":""}}]}],"catalog":{"kind":"tool_search"}}]`: "",
		`[{"name":"c",` + catalogMembers + `,"catalog":{"kind":"tool_search","bogus":1}}]`:                                      "unknown field",
	} {
		_, err := toolNames(t, spec)
		if want == "" {
			continue // a member's own failure is reported by registration
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

func hostCall(t *testing.T, s *agent.Session, op string, extra string) map[string]any {
	t.Helper()
	req := `{"toolset":{"name":"search",` + catalogMembers + `,"catalog":{"kind":"tool_search"}},"op":"` + op + `"` + extra + `}`
	b, err := catalogHostCall(s, []byte(req))
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCatalogHostOperations(t *testing.T) {
	rep := hostCall(t, nil, "initialization_report", "")
	if rep["total_tools"] != float64(3) || rep["total_namespaces"] != float64(2) || rep["availability_checked"] != false {
		t.Fatalf("report %v", rep)
	}
	s := agent.NewBuilder(model.TextModel("x")).MustBuild().NewSession()
	got := hostCall(t, s, "preload_namespace", `,"namespace":"m_math"`)
	if !slices.Equal(toStrings(got["loaded_tools"]), []string{"m_add", "m_multiply"}) {
		t.Fatalf("preload %v", got)
	}
	s.Context().RecordToolSearchLoaded([]string{"stale"}, nil)
	got = hostCall(t, s, "refresh", "")
	if !slices.Equal(toStrings(got["removed_loaded_tools"]), []string{"stale"}) || got["report"] == nil {
		t.Fatalf("refresh %v", got)
	}
	got = hostCall(t, s, "refresh_if_due", `,"binding":{"interval_ms":10},"now_ms":5`)
	if got["refreshed"] != false || got["result"] != nil {
		t.Fatalf("not due %v", got)
	}
	got = hostCall(t, s, "refresh_if_due", `,"binding":{"interval_ms":10},"now_ms":10`)
	if got["refreshed"] != true || got["binding"].(map[string]any)["last_refresh_ms"] != float64(10) {
		t.Fatalf("due %v", got)
	}
	got = hostCall(t, nil, "inventory_changed", `,"binding":{"debounce_ms":5},"version":3,"now_ms":20`)
	if got["pending_inventory_version"] != float64(3) || got["pending_since_ms"] != float64(20) {
		t.Fatalf("inventory_changed %v", got)
	}
	if got = hostCall(t, s, "publish_refresh_report", ""); got["availability_checked"] != true {
		t.Fatalf("publish_refresh_report %v", got)
	}
	got = hostCall(t, s, "invalidate", `,"reason":"replaced"`)
	if got["reason"] != "replaced" || !slices.Equal(toStrings(got["removed_loaded_namespaces"]), []string{"m_math"}) {
		t.Fatalf("invalidate %v", got)
	}
	var kinds []string
	for _, ev := range s.Context().TakeEvents() {
		kinds = append(kinds, ev.Kind)
	}
	want := []string{"tool_search_loaded", "tool_search_refreshed", "tool_search_refreshed", "tool_search_refreshed", "tool_search_invalidated"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	for req, want := range map[string]string{
		`{"toolset":{"name":"x"},"op":"refresh"}`:                                                                                        `needs a toolset spec with a "catalog"`,
		`{"toolset":{"name":"search",` + catalogMembers + `,"catalog":{"kind":"tool_search"}},"op":"explode"}`:                           `unknown catalog operation "explode"`,
		`{"toolset":{"name":"search",` + catalogMembers + `,"catalog":{"kind":"tool_search"}},"op":"refresh"}`:                           "needs a session",
		`{"toolset":{"name":"search",` + catalogMembers + `,"catalog":{"kind":"tool_search"}},"op":"preload_namespace","namespace":"x"}`: "needs a session",
	} {
		if _, err := catalogHostCall(nil, []byte(req)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", req, err, want)
		}
	}
	if _, err := catalogHostCall(s, []byte(`{"toolset":{"name":"search",`+catalogMembers+`,"catalog":{"kind":"tool_search"}},"op":"preload_namespace","namespace":"nope"}`)); err == nil ||
		!strings.Contains(err.Error(), "unknown namespace") {
		t.Errorf("unknown namespace: %v", err)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestCatalogHostThroughTheABI(t *testing.T) {
	noLeaks(t)
	req := []byte(`{"toolset":{"name":"search",` + catalogMembers + `,"catalog":{"kind":"tool_search"}},"op":"initialization_report"}`)
	if s := abi.CatalogHost(0, req, none); s.RC != 0 || !strings.Contains(s.Out, `"total_tools":3`) {
		t.Fatalf("sw_catalog_host(0) = %+v", s)
	}
	wantError(t, abi.CatalogHost(1<<60, req, none), "bad_handle", "unknown handle")
	m := newModel(t)
	wantError(t, abi.CatalogHost(m, req, none), "bad_handle", "not a")
	wantError(t, abi.CatalogHost(0, []byte(`{`), none), "invalid_spec", "")
}
