package toolset_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestWithMetadataMergesIntoEveryDefinition(t *testing.T) {
	a := echo("a", nil).WithMetadata(map[string]any{"bundle": "own", "keep": 1})
	inner := toolset.New("s", a, echo("b", nil)).WithID("sid")
	md := map[string]any{"bundle": "shared", "team": "docs"}
	ts := toolset.WithMetadata(inner, md)
	md["team"] = "changed later" // the map is copied

	if ts.Name() != "s" || ts.ID() != "sid.metadata" {
		t.Fatalf("name/id = %q/%q", ts.Name(), ts.ID())
	}
	da := definition(t, ts, "a")
	if da.Metadata["bundle"] != "shared" || da.Metadata["team"] != "docs" || da.Metadata["keep"] != 1 {
		t.Fatalf("a metadata = %v (toolset keys win, own keys stay)", da.Metadata)
	}
	if db := definition(t, ts, "b"); db.Metadata["team"] != "docs" {
		t.Fatalf("b metadata = %v", db.Metadata)
	}
	if a.Definition().Metadata["bundle"] != "own" {
		t.Fatal("the inner tool's metadata was changed")
	}
	if id := toolset.WithMetadata(toolset.New("s"), md).ID(); id != "" {
		t.Fatalf("ID without an inner id = %q", id)
	}

	r := register(t, nil, ts)
	if d, _ := r.Definition("a"); d.Metadata["team"] != "docs" {
		t.Fatalf("registered metadata = %v", d.Metadata)
	}
	wantSuccess(t, execute(r, nil, "a", `{"value":"x"}`))
}

func TestWithMetadataThenPrefixed(t *testing.T) {
	ts := toolset.Prefixed("ws", toolset.WithMetadata(toolset.New("s", echo("lookup", nil)), map[string]any{tool.MetaBundle: "docs"}))
	if d := definition(t, ts, "ws_lookup"); d.Metadata[tool.MetaBundle] != "docs" {
		t.Fatalf("metadata = %v", d.Metadata)
	}
}
