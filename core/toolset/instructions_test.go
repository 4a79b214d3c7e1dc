package toolset_test

import (
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestCollectInstructionsKeepsFirstPerGroupOrderedByGroup(t *testing.T) {
	a := toolset.New("a").WithInstruction("zeta", "Z from a").WithInstruction("alpha", "A from a")
	b := toolset.New("b").WithInstruction("alpha", "A from b").WithInstruction("mid", "M").WithInstruction("blank", "  ")
	got := toolset.CollectInstructions(nil, a, nil, b)
	want := []toolset.Instruction{
		{Group: "alpha", Content: "A from a"},
		{Group: "mid", Content: "M"},
		{Group: "zeta", Content: "Z from a"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("collected = %v", got)
	}
	if toolset.CollectInstructions(nil) == nil {
		t.Fatal("no toolsets should collect an empty, non-nil list")
	}
}

func TestRenderInstructions(t *testing.T) {
	got := toolset.RenderInstructions([]toolset.Instruction{
		{Group: "b", Content: "Second."},
		{Group: "a", Content: "First <b>bold</b>."},
		{Group: "b", Content: "Dropped."},
		{Group: `q"<&>`, Content: "Escaped name."},
	})
	want := `<tool-instruction name="a">First <b>bold</b>.</tool-instruction>` + "\n" +
		`<tool-instruction name="b">Second.</tool-instruction>` + "\n" +
		`<tool-instruction name="q&quot;&lt;&amp;&gt;">Escaped name.</tool-instruction>`
	if got != want {
		t.Fatalf("rendered:\n%s\nwant:\n%s", got, want)
	}
	if got := toolset.RenderInstructions(nil); got != "" {
		t.Fatalf("empty render = %q", got)
	}
}

func TestInstructionsThroughCombinators(t *testing.T) {
	base := toolset.New("fs", echo("read", nil)).WithInstruction("files", "Read first.")
	sets := []toolset.Toolset{
		toolset.Prefixed("ws", base),
		toolset.ApprovalRequired(base),
		toolset.Deferred(toolset.Filtered(base, func(_ tool.Definition) bool { return false })),
	}
	got := toolset.RenderInstructions(toolset.CollectInstructions(nil, sets...))
	want := `<tool-instruction name="files">Read first.</tool-instruction>` + "\n" +
		`<tool-instruction name="ws_files">Read first.</tool-instruction>`
	if got != want {
		t.Fatalf("rendered:\n%s", got)
	}
}
