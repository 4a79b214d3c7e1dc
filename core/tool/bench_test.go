package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

var benchSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{"type": "string", "maxLength": 200},
		"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
	},
	"required": []any{"query"},
}

var benchArgs = json.RawMessage(`{"query":"starweaver","limit":10}`)

func trivialHandler(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: "ok"}, nil
}

// benchRegistry registers n trivial tools named t0..t{n-1}.
func benchRegistry(b *testing.B, n int, h tool.Handler) *tool.Registry {
	b.Helper()
	var r tool.Registry
	for i := range n {
		if err := r.Add(tool.New(fmt.Sprintf("t%d", i), "", benchSchema, h)); err != nil {
			b.Fatal(err)
		}
	}
	return &r
}

func BenchmarkExecute(b *testing.B) {
	r := benchRegistry(b, 1, trivialHandler)
	c := tool.Call{ID: "c", Name: "t0", Arguments: benchArgs}
	base := &tool.Context{RunID: "run"}
	// A run context is always cancellable in practice.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if ret := r.Execute(ctx, base, c); ret.IsError {
			b.Fatal(ret.Content)
		}
	}
}

func BenchmarkExecuteBatch(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		r := benchRegistry(b, n, trivialHandler)
		calls := make([]tool.Call, n)
		for i := range calls {
			calls[i] = tool.Call{ID: fmt.Sprint(i), Name: fmt.Sprintf("t%d", i), Arguments: benchArgs}
		}
		for _, mode := range []struct {
			name string
			seq  bool
		}{{"parallel", false}, {"sequential", true}} {
			b.Run(fmt.Sprintf("calls=%d/%s", n, mode.name), func(b *testing.B) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				base := &tool.Context{RunID: "run"}
				opts := tool.BatchOptions{Sequential: mode.seq}
				b.ReportAllocs()
				for b.Loop() {
					rets := r.ExecuteBatch(ctx, base, calls, opts)
					if rets[n-1].IsError {
						b.Fatal(rets[n-1].Content)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/call")
			})
		}
	}
}

func BenchmarkExecuteBatchWait(b *testing.B) {
	const n = 1000
	const wait = 100 * time.Millisecond
	r := benchRegistry(b, n, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		case <-t.C:
			return tool.Result{Content: "ok"}, nil
		}
	})
	calls := make([]tool.Call, n)
	for i := range calls {
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: fmt.Sprintf("t%d", i), Arguments: benchArgs}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		rets := r.ExecuteBatch(ctx, &tool.Context{RunID: "run"}, calls, tool.BatchOptions{})
		for _, ret := range rets {
			if ret.IsError {
				b.Fatal(ret.Content)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/batch")
}

// BenchmarkValidate times the schema check of one call's arguments on the
// quick path (the text read in place, what calls take when the schema and
// the arguments allow it) against decoding them for the full validator
// alone, which is what the quick path saves.
func BenchmarkValidate(b *testing.B) {
	norm, err := tool.NormalizeSchema(benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	s, err := tool.CompileSchema(norm)
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []struct {
		name     string
		validate func([]byte) error
	}{{"quick", s.ValidateQuick}, {"full", s.ValidateFull}} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := path.validate(benchArgs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
