package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// BenchmarkAgentRun measures a whole run with TestModel: one model request
// asking for n trivial calls of distinct tools, then a text answer.
func BenchmarkAgentRun(b *testing.B) {
	for _, n := range []int{0, 1, 10, 100} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			tools := make([]tool.Tool, n)
			cs := make([]model.ToolCall, n)
			for i := range n {
				name := fmt.Sprintf("t%d", i)
				tools[i] = tool.New(name, "", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}},
					func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
						return tool.Text("ok"), nil
					})
				cs[i] = model.Call(fmt.Sprintf("c%d", i), name, map[string]int{"x": i})
			}
			script := []model.Message{model.Response(model.TextPart("done"))}
			if n > 0 {
				script = append([]model.Message{model.CallsResponse(cs...)}, script...)
			}
			fm := newScripted(script)
			a := agent.NewBuilder(fm).Tool(tools...).MustBuild()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				fm.reset()
				if _, err := a.Run(ctx, "go"); err != nil {
					b.Fatal(err)
				}
			}
			if n > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
			}
		})
	}
}

// scripted replays a fixed script for every run, without recording, so
// the benchmark measures the loop rather than the test model's capture.
type scripted struct {
	script []model.Message
	next   int
}

func newScripted(script []model.Message) *scripted { return &scripted{script: script} }

func (s *scripted) reset() { s.next = 0 }

func (s *scripted) Request(_ context.Context, _ []model.Message, _ model.Params) (model.Message, error) {
	m := s.script[s.next%len(s.script)]
	s.next++
	return m, nil
}

// BenchmarkAgentToolCall compares a run whose model calls an agent tool
// once (the child answers with text at once) with the same run calling a
// plain tool: the difference is what running a child agent costs.
func BenchmarkAgentToolCall(b *testing.B) {
	parentScript := []model.Message{
		model.CallsResponse(model.Call("c1", "helper", map[string]string{"prompt": "go"})),
		model.Response(model.TextPart("done")),
	}
	plain := tool.New("helper", "", agentToolBenchSchema(), func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("ok"), nil
	})
	childModel := newScripted([]model.Message{model.Response(model.TextPart("ok"))})
	child := agent.NewBuilder(childModel).Name("helper").MustBuild()
	asTool, err := agent.AsTool(child, agent.AsToolOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		t    tool.Tool
	}{{"plain", plain}, {"agent_tool", asTool}} {
		b.Run(c.name, func(b *testing.B) {
			fm := newScripted(parentScript)
			a := agent.NewBuilder(fm).Tool(c.t).MustBuild()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				fm.reset()
				childModel.reset()
				if _, err := a.Run(ctx, "go"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func agentToolBenchSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"prompt": map[string]any{"type": "string"}}}
}
