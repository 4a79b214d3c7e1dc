package toolset_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestPreparedHidesAndRewritesPerContext(t *testing.T) {
	p := &probe{}
	var seen []string
	ts := toolset.Prepared(toolset.New("s", echo("a", p), echo("b", nil), echo("c", nil)).WithID("sid"),
		func(rc *tool.RunContext, defs []tool.Definition) []tool.Definition {
			seen = append(seen, rc.RunID)
			tenant, _ := rc.Metadata["tenant"].(string)
			if tenant == "" {
				return nil // unchanged
			}
			var out []tool.Definition
			for _, d := range defs {
				switch d.Name {
				case "b":
					continue // hidden
				case "c":
					d.Description = "Lookup for " + tenant
					d.Metadata = map[string]any{"tenant": tenant}
				}
				out = append(out, d)
			}
			return out
		})
	if ts.Name() != "s" || ts.ID() != "sid" {
		t.Fatalf("name/id = %q/%q", ts.Name(), ts.ID())
	}
	if got := names(t, ts, nil); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("nil return must leave tools unchanged, got %v", got)
	}

	rc := &tool.RunContext{RunID: "run7", Metadata: map[string]any{"tenant": "acme"}}
	if got := names(t, ts, rc); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("tools = %v", got)
	}
	if !slices.Equal(seen, []string{"", "run7"}) {
		t.Fatalf("prepare saw run ids %q (a nil rc must arrive as an empty one)", seen)
	}
	tools, _ := ts.Tools(rc)
	if d := tools[1].Definition(); d.Description != "Lookup for acme" || d.Metadata["tenant"] != "acme" {
		t.Fatalf("rewritten definition = %+v", d)
	}

	r := register(t, rc, ts)
	if got := r.Names(); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("registered = %v", got)
	}
	ret := execute(r, nil, "c", `{"value":"x"}`)
	wantSuccess(t, ret)
	if ret.Metadata["ran"] != "c" {
		t.Fatalf("a rewritten tool must run its own implementation: %v", ret.Metadata)
	}
	wantKind(t, execute(r, nil, "b", `{"value":"x"}`), tool.ErrorKindNotFound)
}

func TestPreparedEmptyResultHidesEverything(t *testing.T) {
	ts := toolset.Prepared(toolset.New("s", echo("a", nil)), func(*tool.RunContext, []tool.Definition) []tool.Definition {
		return []tool.Definition{}
	})
	if got := names(t, ts, nil); len(got) != 0 {
		t.Fatalf("tools = %v", got)
	}
}

func TestPreparedRenameIsAnError(t *testing.T) {
	ts := toolset.Prepared(toolset.New("s", echo("a", nil)), func(_ *tool.RunContext, defs []tool.Definition) []tool.Definition {
		defs[0].Name = "renamed"
		return defs
	})
	_, err := ts.Tools(nil)
	if !errors.Is(err, toolset.ErrPrepareRenamed) {
		t.Fatalf("err = %v", err)
	}
	if err := toolset.Register(&tool.Registry{}, nil, ts); !errors.Is(err, toolset.ErrPrepareRenamed) {
		t.Fatalf("Register err = %v", err)
	}
}

func TestPreparedDuplicateIsAnError(t *testing.T) {
	ts := toolset.Prepared(toolset.New("s", echo("a", nil)), func(_ *tool.RunContext, defs []tool.Definition) []tool.Definition {
		return append(defs, defs[0])
	})
	var dup *toolset.DuplicateError
	if _, err := ts.Tools(nil); !errors.As(err, &dup) || dup.Tool != "a" {
		t.Fatalf("err = %v", err)
	}
}

func TestPreparedDoesNotChangeTheInnerDefinitions(t *testing.T) {
	a := echo("a", nil).WithMetadata(map[string]any{"k": "v"})
	ts := toolset.Prepared(toolset.New("s", a), func(_ *tool.RunContext, defs []tool.Definition) []tool.Definition {
		defs[0].Metadata["k"] = "changed"
		return defs
	})
	if d := definition(t, ts, "a"); d.Metadata["k"] != "changed" {
		t.Fatalf("prepared metadata = %v", d.Metadata)
	}
	if a.Definition().Metadata["k"] != "v" {
		t.Fatal("prepare changed the inner tool's metadata")
	}
}
