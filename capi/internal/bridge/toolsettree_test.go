package bridge

import (
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func toolNames(t *testing.T, spec string) ([]string, error) {
	t.Helper()
	var specs []toolsetSpec
	if err := decodeStrict([]byte(spec), &specs); err != nil {
		return nil, err
	}
	sets, err := buildToolsets(specs)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, ts := range sets {
		tools, err := ts.Tools(&tool.RunContext{})
		if err != nil {
			return nil, err
		}
		for _, tl := range tools {
			names = append(names, tl.Definition().Name)
		}
	}
	return names, nil
}

func TestToolsetLayersBuildCoreCombinators(t *testing.T) {
	def := func(n string) string { return `{"id":1,"definition":{"name":"` + n + `"}}` }
	base := `{"name":"files","tools":[` + def("read") + `,` + def("write") + `,` + def("rm") + `]`
	names, err := toolNames(t, `[`+base+`,"layers":[{"kind":"exclude","names":["rm"]},{"kind":"renamed","renames":{"read":"cat"}},{"kind":"prefixed","prefix":"fs"}]}]`)
	if err != nil || !slices.Equal(names, []string{"fs_cat", "fs_write"}) {
		t.Fatalf("names %v, err %v", names, err)
	}
	names, err = toolNames(t, `[{"name":"all","combined":[`+base+`,"layers":[{"kind":"include","names":["read"]}]},{"name":"web","tools":[`+def("fetch")+`]}]}]`)
	if err != nil || !slices.Equal(names, []string{"read", "fetch"}) {
		t.Fatalf("names %v, err %v", names, err)
	}
	_, err = toolNames(t, `[{"name":"all","combined":[`+base+`},{"name":"again","tools":[`+def("read")+`]}]}]`)
	if err == nil || !strings.Contains(err.Error(), `"read"`) || !strings.Contains(err.Error(), "again") {
		t.Fatalf("duplicate across members: %v", err)
	}
	for spec, want := range map[string]string{
		`[` + base + `,"layers":[{"kind":"shuffled"}]}]`:             `unknown combinator "shuffled"`,
		`[` + base + `,"layers":[{"kind":"prefixed","prefix":""}]}]`: "non-empty prefix",
	} {
		if _, err := toolNames(t, spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", spec, err)
		}
	}
}

func TestToolsetMetadataLayer(t *testing.T) {
	var specs []toolsetSpec
	if err := decodeStrict([]byte(`[{"name":"s","tools":[{"id":1,"definition":{"name":"a","metadata":{"x":1}}}],"layers":[{"kind":"metadata","metadata":{"x":2,"bundle":"b"}}]}]`), &specs); err != nil {
		t.Fatal(err)
	}
	sets, err := buildToolsets(specs)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := sets[0].Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	if md := tools[0].Definition().Metadata; md["x"] != float64(2) || md["bundle"] != "b" {
		t.Fatalf("metadata %v", md)
	}
}

// A toolset spec's instruction_groups reach core as instructions of their
// own groups (a blank group is the toolset's), after its plain ones.
func TestToolsetInstructionGroups(t *testing.T) {
	var specs []toolsetSpec
	spec := `[{"name":"fs","instructions":["Plain."],"instruction_groups":[{"group":"files","content":"Shared."},{"group":"","content":"Own."}]}]`
	if err := decodeStrict([]byte(spec), &specs); err != nil {
		t.Fatal(err)
	}
	sets, err := buildToolsets(specs)
	if err != nil {
		t.Fatal(err)
	}
	got := toolset.CollectInstructions(&tool.RunContext{}, sets...)
	want := []toolset.Instruction{{Group: "files", Content: "Shared."}, {Group: "fs", Content: "Plain."}}
	if !slices.Equal(got, want) {
		t.Fatalf("instructions %v, want %v (one per group, the first, ordered by group)", got, want)
	}
}
