package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestRegistryRejectsBadTools(t *testing.T) {
	var nilFn *tool.Function
	tests := []struct {
		name  string
		tools []tool.Tool
		check func(error) bool
	}{
		{"nil tool", []tool.Tool{nil}, func(err error) bool { return strings.Contains(err.Error(), "nil tool") }},
		{"typed nil tool", []tool.Tool{nilFn}, func(err error) bool { return strings.Contains(err.Error(), "nil tool") }},
		{"blank name", []tool.Tool{tool.New("", "", nil, okHandler)}, func(err error) bool { return strings.Contains(err.Error(), "empty") }},
		{"whitespace name", []tool.Tool{tool.New("  ", "", nil, okHandler)}, func(err error) bool { return strings.Contains(err.Error(), "empty") }},
		{"duplicate name", []tool.Tool{tool.New("a", "", nil, okHandler), tool.New("a", "", nil, okHandler)},
			func(err error) bool {
				return errors.Is(err, tool.ErrDuplicateTool) && strings.Contains(err.Error(), `"a"`)
			}},
		{"malformed schema", []tool.Tool{tool.New("s", "", map[string]any{"type": "array"}, okHandler)},
			func(err error) bool { return errors.Is(err, tool.ErrSchema) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.NewRegistry(tt.tools...)
			if err == nil {
				t.Fatal("registration succeeded")
			}
			if !tt.check(err) {
				t.Fatalf("unexpected error: %v", err)
			}
		})
	}
}

func TestRegistryLookups(t *testing.T) {
	b := tool.New("b", "B", nil, okHandler)
	a := tool.New("a", "A", map[string]any{"properties": map[string]any{}}, okHandler)
	r := mustRegistry(t, b, a)
	if r.Len() != 2 || !slices.Equal(r.Names(), []string{"a", "b"}) {
		t.Fatalf("names = %v", r.Names())
	}
	names := r.Names()
	names[0] = "zzz"
	if r.Names()[0] != "a" {
		t.Fatal("Names returns internal state")
	}
	if got, ok := r.Tool("b"); !ok || got != tool.Tool(b) {
		t.Fatal("Tool(b)")
	}
	if _, ok := r.Tool("c"); ok {
		t.Fatal("Tool(c) found")
	}
	if e, ok := r.Entry("a"); !ok || e.Tool != tool.Tool(a) {
		t.Fatal("Entry(a)")
	}
	if _, ok := r.Entry("c"); ok {
		t.Fatal("Entry(c) found")
	}
	if _, ok := r.Definition("c"); ok {
		t.Fatal("Definition(c) found")
	}
	defs := r.Definitions()
	if len(defs) != 2 || defs[0].Name != "a" || defs[1].Name != "b" || defs[0].Description != "A" {
		t.Fatalf("definitions = %+v", defs)
	}
	// Definitions are normalised.
	if !jsonEqual(t, defs[1].Parameters, map[string]any{"type": "object", "properties": map[string]any{}}) {
		t.Fatalf("b parameters = %v", defs[1].Parameters)
	}
	// The zero registry is empty and usable.
	var z tool.Registry
	if z.Len() != 0 || len(z.Definitions()) != 0 {
		t.Fatal("zero registry not empty")
	}
	wantKind(t, z.Execute(context.Background(), nil, call("1", "x", `{}`)), tool.ErrorKindNotFound)
}

func TestRegistryDefinitionsAreCopies(t *testing.T) {
	r := mustRegistry(t, tool.New("a", "", nil, okHandler).WithMetadata(map[string]any{"k": "v"}))
	d, _ := r.Definition("a")
	d.Metadata["k"] = "changed"
	r.Definitions()[0].Metadata["x"] = 1
	got, _ := r.Definition("a")
	if got.Metadata["k"] != "v" || len(got.Metadata) != 1 {
		t.Fatalf("callers can change registered metadata: %v", got.Metadata)
	}
}

// MetadataValue reads one key of a registered definition's metadata; an
// absent key or tool reports false.
func TestRegistryMetadataValue(t *testing.T) {
	r := mustRegistry(t, tool.New("a", "", nil, okHandler).WithMetadata(map[string]any{"k": "v"}), tool.New("b", "", nil, okHandler))
	for _, c := range []struct {
		name, key string
		want      any
		ok        bool
	}{{"a", "k", "v", true}, {"a", "x", nil, false}, {"b", "k", nil, false}, {"nope", "k", nil, false}} {
		if got, ok := r.MetadataValue(c.name, c.key); got != c.want || ok != c.ok {
			t.Errorf("MetadataValue(%q, %q) = %v, %v", c.name, c.key, got, ok)
		}
	}
}

func TestMaxRetriesPrecedence(t *testing.T) {
	three := 3
	mk := func(name string, own *int) tool.Tool {
		f := tool.New(name, "", nil, okHandler)
		if own != nil {
			f.WithMaxRetries(*own)
		}
		return f
	}
	var r tool.Registry
	if err := r.AddEntry(tool.Entry{Tool: mk("tool_and_set", ptr(7)), Toolset: "ts", MaxRetries: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddEntry(tool.Entry{Tool: mk("set_only", nil), Toolset: "ts", MaxRetries: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddEntry(tool.Entry{Tool: mk("zero_tool", ptr(0)), MaxRetries: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(mk("plain", nil)); err != nil {
		t.Fatal(err)
	}
	// Default before any registry value.
	if got := r.MaxRetriesFor("plain"); got != tool.DefaultMaxRetries || got != three {
		t.Fatalf("default = %d", got)
	}
	if got := r.MaxRetriesFor("unknown"); got != tool.DefaultMaxRetries {
		t.Fatalf("unknown default = %d", got)
	}
	r.SetMaxRetries(1)
	for name, want := range map[string]int{"tool_and_set": 7, "set_only": 5, "zero_tool": 0, "plain": 1, "unknown": 1} {
		if got := r.MaxRetriesFor(name); got != want {
			t.Errorf("MaxRetriesFor(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestTimeoutPrecedence(t *testing.T) {
	var r tool.Registry
	if err := r.AddEntry(tool.Entry{Tool: tool.New("tool_and_set", "", nil, okHandler).WithTimeout(time.Second), Timeout: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddEntry(tool.Entry{Tool: tool.New("set_only", "", nil, okHandler), Timeout: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(tool.New("plain", "", nil, okHandler)); err != nil {
		t.Fatal(err)
	}
	if got := r.TimeoutFor("plain"); got != 0 {
		t.Fatalf("no timeout = %v", got)
	}
	r.SetTimeout(5 * time.Second)
	for name, want := range map[string]time.Duration{"tool_and_set": time.Second, "set_only": 2 * time.Second, "plain": 5 * time.Second, "unknown": 5 * time.Second} {
		if got := r.TimeoutFor(name); got != want {
			t.Errorf("TimeoutFor(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSelect(t *testing.T) {
	var r tool.Registry
	r.SetMaxRetries(9)
	r.SetTimeout(time.Minute)
	if err := r.AddEntry(tool.Entry{Tool: tool.New("a", "", nil, okHandler), MaxRetries: ptr(2)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(tool.New("b", "", nil, okHandler), tool.New("c", "", nil, okHandler)); err != nil {
		t.Fatal(err)
	}
	var hookRuns []string
	r.AddHook(tool.Hook{Name: "g", Before: func(_ context.Context, tc *tool.Context, _ map[string]any) error {
		hookRuns = append(hookRuns, tc.ToolName)
		return nil
	}})
	s := r.Select([]string{"c", "a", "nope", "a"})
	if !slices.Equal(s.Names(), []string{"a", "c"}) {
		t.Fatalf("selected names = %v", s.Names())
	}
	if s.MaxRetriesFor("a") != 2 || s.MaxRetriesFor("c") != 9 || s.TimeoutFor("c") != time.Minute {
		t.Fatal("Select lost defaults")
	}
	wantKind(t, s.Execute(context.Background(), nil, call("1", "b", `{}`)), tool.ErrorKindNotFound)
	wantSuccess(t, s.Execute(context.Background(), nil, call("2", "a", `{}`)))
	if !slices.Equal(hookRuns, []string{"a"}) {
		t.Fatalf("global hook runs = %v", hookRuns)
	}
}

// Hooks added to a selected registry and to its parent stay separate.
func TestSelectHooksDoNotAlias(t *testing.T) {
	var r tool.Registry
	if err := r.Add(tool.New("a", "", nil, okHandler)); err != nil {
		t.Fatal(err)
	}
	var runs []string
	hook := func(name string) tool.Hook {
		return tool.Hook{Name: name, Before: func(context.Context, *tool.Context, map[string]any) error {
			runs = append(runs, name)
			return nil
		}}
	}
	r.AddHook(hook("p1"))
	r.AddHook(hook("p2"))
	r.AddHook(hook("p3")) // the hooks slice now has spare capacity
	s := r.Select([]string{"a"})
	s.AddHook(hook("child"))
	r.AddHook(hook("parent"))
	runs = nil
	s.Execute(context.Background(), nil, call("1", "a", `{}`))
	if !slices.Equal(runs, []string{"p1", "p2", "p3", "child"}) {
		t.Fatalf("selected registry hooks = %v", runs)
	}
	runs = nil
	r.Execute(context.Background(), nil, call("1", "a", `{}`))
	if !slices.Equal(runs, []string{"p1", "p2", "p3", "parent"}) {
		t.Fatalf("parent registry hooks = %v", runs)
	}
}

func TestMerge(t *testing.T) {
	var base tool.Registry
	if err := base.Add(tool.New("a", "", nil, okHandler)); err != nil {
		t.Fatal(err)
	}
	var other tool.Registry
	if err := other.AddEntry(tool.Entry{Tool: tool.New("b", "", nil, okHandler), Toolset: "ts", Timeout: time.Second, MaxRetries: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	var hooked int
	other.AddHook(tool.Hook{Before: func(context.Context, *tool.Context, map[string]any) error { hooked++; return nil }})
	if err := base.Merge(&other); err != nil {
		t.Fatal(err)
	}
	if err := base.Merge(nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(base.Names(), []string{"a", "b"}) {
		t.Fatalf("names = %v", base.Names())
	}
	if e, _ := base.Entry("b"); e.Toolset != "ts" || base.TimeoutFor("b") != time.Second || base.MaxRetriesFor("b") != 1 {
		t.Fatalf("toolset defaults lost: %+v", e)
	}
	wantSuccess(t, base.Execute(context.Background(), nil, call("1", "a", `{}`)))
	if hooked != 1 {
		t.Fatalf("merged global hook ran %d times", hooked)
	}
	if err := base.Merge(&other); !errors.Is(err, tool.ErrDuplicateTool) {
		t.Fatalf("second merge: %v", err)
	}
}

// A tool whose construction failed cannot be registered.
type brokenTool struct{ bareTool }

func (brokenTool) Err() error { return errors.New("could not build") }

func TestRegistryReportsBuildErrors(t *testing.T) {
	_, err := tool.NewRegistry(brokenTool{bareTool{"broken"}})
	if err == nil || !strings.Contains(err.Error(), "could not build") || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("err = %v", err)
	}
}

// A tool's Definition is read once, at registration.
type countingTool struct {
	bareTool
	defs *int
}

func (c countingTool) Definition() tool.Definition { *c.defs++; return c.bareTool.Definition() }

func TestDefinitionReadOnceAtRegistration(t *testing.T) {
	var n int
	r := mustRegistry(t, countingTool{bareTool{"c"}, &n})
	before := n
	for range 3 {
		r.Execute(context.Background(), nil, call("1", "c", `{}`))
	}
	r.Definitions()
	if n != before {
		t.Fatalf("Definition called %d more times after registration", n-before)
	}
	_ = json.RawMessage{}
}
