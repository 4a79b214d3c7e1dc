package toolset_test

import (
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func threeTools() *toolset.Static {
	return toolset.New("s", echo("a", nil), echo("b", nil).WithTags("write"), echo("c", nil)).
		WithID("sid").WithInstruction("g", "text").WithMaxRetries(2)
}

func TestFilteredByPredicate(t *testing.T) {
	ts := toolset.Filtered(threeTools(), func(d tool.Definition) bool {
		return !slices.Contains(tool.MetadataTags(d.Metadata), "write")
	})
	if got := names(t, ts, nil); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("tools = %v", got)
	}
	if ts.Name() != "s" || ts.ID() != "sid" || len(ts.Instructions(nil)) != 1 || *ts.Defaults().MaxRetries != 2 {
		t.Fatalf("name/id/instructions/defaults not forwarded: %q %q %v %+v", ts.Name(), ts.ID(), ts.Instructions(nil), ts.Defaults())
	}
}

func TestIncludeAndExclude(t *testing.T) {
	if got := names(t, toolset.Include(threeTools(), "c", "a", "missing"), nil); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("Include = %v", got)
	}
	if got := names(t, toolset.Exclude(threeTools(), "a", "missing"), nil); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("Exclude = %v", got)
	}
	if got := names(t, toolset.Include(threeTools()), nil); len(got) != 0 {
		t.Fatalf("Include() = %v, want nothing", got)
	}
	if got := names(t, toolset.Exclude(threeTools()), nil); len(got) != 3 {
		t.Fatalf("Exclude() = %v, want everything", got)
	}
}

func TestFilteredToolsAreNotWrapped(t *testing.T) {
	a := echo("a", nil)
	tools, err := toolset.Include(toolset.New("s", a), "a").Tools(nil)
	if err != nil || len(tools) != 1 || tools[0] != tool.Tool(a) {
		t.Fatalf("tools = %v, %v; want the original tool", tools, err)
	}
}
