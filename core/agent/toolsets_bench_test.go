package agent_test

import (
	"context"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// BenchmarkDynamicToolsetRun is a two-step run whose toolset has a
// lifecycle and is read at every step: what entering, two reads, two
// registry rebuilds and exiting add to BenchmarkAgentRun/calls=1.
func BenchmarkDynamicToolsetRun(b *testing.B) {
	add := addTool()
	ls := &lcSet{name: "calc", perStep: true, tools: func(int) []tool.Tool { return []tool.Tool{add} }}
	fm := newScripted([]model.Message{calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2})), text("done")})
	a := agent.NewBuilder(fm).Toolset(ls).MustBuild()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		fm.reset()
		ls.mu.Lock()
		ls.log = ls.log[:0]
		ls.mu.Unlock()
		if _, err := a.Run(ctx, "go"); err != nil {
			b.Fatal(err)
		}
	}
}
