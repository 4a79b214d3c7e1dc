package catalog_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func object(props ...string) map[string]any {
	p := map[string]any{}
	for _, n := range props {
		p[n] = map[string]any{"type": "string"}
	}
	return map[string]any{"type": "object", "properties": p}
}

func echo(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
	var v any
	_ = json.Unmarshal(args, &v)
	return tool.JSON(v), nil
}

// library is the members every test uses: docs (id docs_ns), math (id
// math) and one loose tool.
func library() []toolset.Toolset {
	add := tool.New("add", "Add two integers.", map[string]any{
		"type":       "object",
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		"required":   []any{"a", "b"},
	}, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		var in struct{ A, B int }
		_ = json.Unmarshal(args, &in)
		return tool.JSON(in.A + in.B), nil
	})
	return []toolset.Toolset{
		toolset.New("docs", tool.New("lookup_docs", "Look up documentation by topic", object("topic"), echo)).WithID("docs_ns"),
		toolset.New("math", add, tool.New("multiply", "Multiply two integers.", object("a", "b"), echo)).WithID("math"),
		toolset.New("misc", tool.New("weather", "Get the weather forecast for a city.", object("city"), echo)),
	}
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// recorder collects a run's custom event kinds and tool returns.
type recorder struct {
	mu      sync.Mutex
	kinds   []string
	payload map[string][]map[string]any
	returns []tool.Return
}

func (r *recorder) handler() agent.RunOption {
	return agent.WithEvents(func(ev agent.Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if ev.Custom != nil {
			r.kinds = append(r.kinds, ev.Custom.Kind)
			if r.payload == nil {
				r.payload = map[string][]map[string]any{}
			}
			r.payload[ev.Custom.Kind] = append(r.payload[ev.Custom.Kind], ev.Custom.Payload)
		}
		if ev.Return != nil {
			r.returns = append(r.returns, *ev.Return)
		}
	})
}

func (r *recorder) has(kind string) bool { return slices.Contains(r.kinds, kind) }

// toolNames returns the names of the tools each request listed.
func toolNames(m *model.TestModel) [][]string {
	var out [][]string
	for _, req := range m.Requests() {
		var names []string
		for _, d := range req.Params.Tools {
			names = append(names, d.Name)
		}
		out = append(out, names)
	}
	return out
}

func mustRun(t *testing.T, s *agent.Session, prompt string, opts ...agent.RunOption) *agent.RunResult {
	t.Helper()
	res, err := s.Run(context.Background(), prompt, opts...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func stringsContains(s, sub string) bool { return strings.Contains(s, sub) }
