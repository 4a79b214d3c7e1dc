package tool_test

import (
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestMetadataTagsNormalisation(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []string
	}{
		{"absent", nil, nil},
		{"strings", []string{" fs ", "search", "", "fs", "  ", "search", "web"}, []string{"fs", "search", "web"}},
		{"json values", []any{"a", 1, nil, true, " b", "a", map[string]any{}, "c "}, []string{"a", "b", "c"}},
		{"all blank", []any{" ", ""}, nil},
		{"not a list", "fs", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := map[string]any{}
			if tt.in != nil {
				md[tool.MetaTags] = tt.in
				md[tool.MetaHiddenByTags] = tt.in
			}
			if got := tool.MetadataTags(md); !slices.Equal(got, tt.want) {
				t.Errorf("MetadataTags = %q, want %q", got, tt.want)
			}
			if got := tool.MetadataHiddenByTags(md); !slices.Equal(got, tt.want) {
				t.Errorf("MetadataHiddenByTags = %q, want %q", got, tt.want)
			}
		})
	}
	if tool.MetadataTags(nil) != nil {
		t.Error("nil metadata")
	}
}

func TestFunctionTags(t *testing.T) {
	f := tool.New("search_files", "", nil, okHandler).
		WithTags("filesystem", " search ", "", "filesystem").
		WithTags("search", "grep").
		WithHiddenByTags("remote-search")
	md := f.Definition().Metadata
	if got := tool.MetadataTags(md); !slices.Equal(got, []string{"filesystem", "search", "grep"}) {
		t.Fatalf("tags = %q", got)
	}
	if got := tool.MetadataHiddenByTags(md); !slices.Equal(got, []string{"remote-search"}) {
		t.Fatalf("hidden_by_tags = %q", got)
	}
	// Empty tag lists remove the key.
	g := tool.New("g", "", nil, okHandler).WithTags(" ", "")
	if _, has := g.Definition().Metadata[tool.MetaTags]; has {
		t.Fatal("empty tags stored")
	}
	// The stored value survives a JSON round trip.
	var r = mustRegistry(t, f)
	d, _ := r.Definition("search_files")
	if !jsonEqual(t, d.Metadata[tool.MetaTags], []string{"filesystem", "search", "grep"}) {
		t.Fatalf("registered tags = %v", d.Metadata[tool.MetaTags])
	}
}

func TestHiddenByActiveTags(t *testing.T) {
	md := map[string]any{tool.MetaHiddenByTags: []any{"remote-search", " web "}}
	cases := []struct {
		active []string
		want   bool
	}{
		{nil, false},
		{[]string{"local"}, false},
		{[]string{"local", "web"}, true},
		{[]string{" remote-search "}, true},
		{[]string{""}, false},
	}
	for _, c := range cases {
		if got := tool.HiddenByActiveTags(md, c.active); got != c.want {
			t.Errorf("HiddenByActiveTags(%q) = %v, want %v", c.active, got, c.want)
		}
	}
	if tool.HiddenByActiveTags(nil, []string{"x"}) {
		t.Error("nil metadata hidden")
	}
}

func TestMetadataKind(t *testing.T) {
	for _, k := range tool.Kinds() {
		f := tool.New("t", "", nil, okHandler).WithKind(k)
		got, ok := tool.MetadataKind(f.Definition().Metadata)
		if !ok || got != k {
			t.Errorf("kind %q read back as %q, %v", k, got, ok)
		}
		if f.Definition().Metadata[tool.MetaKind] != string(k) {
			t.Errorf("stored kind = %v", f.Definition().Metadata[tool.MetaKind])
		}
	}
	for _, md := range []map[string]any{nil, {}, {tool.MetaKind: "weird"}, {tool.MetaKind: 3}} {
		if k, ok := tool.MetadataKind(md); ok || k != "" {
			t.Errorf("MetadataKind(%v) = %q, %v", md, k, ok)
		}
	}
}

func TestAvailabilityAndPrepare(t *testing.T) {
	gated := tool.New("gated", "Only visible when enabled", nil, okHandler).
		WithAvailability(func(rc *tool.RunContext) bool {
			enabled, _ := rc.Metadata["enable_gated_tool"].(bool)
			return enabled
		})
	tenant := tool.New("tenant_lookup", "Lookup tenant data", nil, okHandler).
		WithMetadata(map[string]any{"k": "v"}).
		WithPrepareDefinition(func(rc *tool.RunContext, d tool.Definition) (tool.Definition, bool) {
			name, ok := rc.Metadata["tenant"].(string)
			if !ok {
				return d, false
			}
			d.Description = "Lookup data for tenant " + name
			d.Metadata["tenant"] = name
			return d, true
		})
	hidden := tool.New("local_search", "", nil, okHandler).WithHiddenByTags("remote-search")
	always := tool.New("always", "", nil, okHandler)
	r := mustRegistry(t, gated, tenant, hidden, always)

	a := r.DefinitionsFor(&tool.RunContext{})
	if !slices.Equal(a.Available, []string{"always", "local_search"}) {
		t.Fatalf("available = %v", a.Available)
	}
	if !slices.Equal(a.Unavailable, []string{"gated", "tenant_lookup"}) {
		t.Fatalf("unavailable = %v", a.Unavailable)
	}
	if len(a.Definitions) != 2 || a.Definitions[0].Name != "always" {
		t.Fatalf("definitions = %+v", a.Definitions)
	}
	if nilRC := r.DefinitionsFor(nil); !slices.Equal(nilRC.Available, a.Available) {
		t.Fatalf("nil run context: %v", nilRC.Available)
	}

	a = r.DefinitionsFor(&tool.RunContext{
		Metadata:   map[string]any{"enable_gated_tool": true, "tenant": "acme"},
		ActiveTags: []string{"remote-search"},
	})
	if !slices.Equal(a.Available, []string{"always", "gated", "tenant_lookup"}) || !slices.Equal(a.Unavailable, []string{"local_search"}) {
		t.Fatalf("available = %v, unavailable = %v", a.Available, a.Unavailable)
	}
	var prepared tool.Definition
	for _, d := range a.Definitions {
		if d.Name == "tenant_lookup" {
			prepared = d
		}
	}
	if prepared.Description != "Lookup data for tenant acme" || prepared.Metadata["tenant"] != "acme" || prepared.Metadata["k"] != "v" {
		t.Fatalf("prepared = %+v", prepared)
	}
	// Preparing never changes the registered definition.
	orig, _ := r.Definition("tenant_lookup")
	if orig.Description != "Lookup tenant data" || orig.Metadata["tenant"] != nil {
		t.Fatalf("registered definition changed: %+v", orig)
	}
	// A hidden tool stays executable.
	wantSuccess(t, r.Execute(t.Context(), nil, call("1", "gated", `{}`)))
}
