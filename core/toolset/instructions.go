package toolset

import (
	"slices"
	"strings"

	"github.com/starweaver-go/starweaver/core/tool"
)

// CollectInstructions gathers the instructions of sets for rc, in toolset
// order, and normalises them as [RenderInstructions] does: blank contents
// are dropped, one instruction is kept per group (the first) and the
// result is ordered by group.
func CollectInstructions(rc *tool.RunContext, sets ...Toolset) []Instruction {
	var all []Instruction
	for _, ts := range sets {
		if ts != nil {
			all = append(all, ts.Instructions(rc)...)
		}
	}
	return normalize(all)
}

// RenderInstructions renders instructions as the prompt block the model
// sees: after normalising (blank contents dropped, the first instruction
// of each group kept, ordered by group) each becomes
// <tool-instruction name="{group}">{content}</tool-instruction>, and they
// are joined by newlines. The group is escaped as an XML attribute; the
// content is prompt text and is kept verbatim. No instructions render as "".
func RenderInstructions(ins []Instruction) string {
	var b strings.Builder
	for i, in := range normalize(ins) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(`<tool-instruction name="`)
		b.WriteString(attrEscaper.Replace(in.Group))
		b.WriteString(`">`)
		b.WriteString(in.Content)
		b.WriteString(`</tool-instruction>`)
	}
	return b.String()
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;")

func normalize(ins []Instruction) []Instruction {
	seen := map[string]bool{}
	out := make([]Instruction, 0, len(ins))
	for _, in := range ins {
		if strings.TrimSpace(in.Content) == "" || seen[in.Group] {
			continue
		}
		seen[in.Group] = true
		out = append(out, in)
	}
	slices.SortStableFunc(out, func(a, b Instruction) int { return strings.Compare(a.Group, b.Group) })
	return out
}
