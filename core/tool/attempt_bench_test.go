package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// hostLike is a Starter answered by one goroutine that delivers every
// completion, as a host process's reader does.
type hostLike struct {
	name    string
	answers chan func()
}

func (h *hostLike) Definition() tool.Definition {
	return tool.Definition{Name: h.name, Parameters: benchSchema}
}

func (h *hostLike) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, tool.UserError("the blocking path was used")
}

func (h *hostLike) Start(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
	h.answers <- func() { done(tool.Result{Content: "ok"}, nil) }
}

// BenchmarkExecuteBatchStarted measures a parallel batch of Starters, all
// answered by one goroutine: the batch itself parks no goroutine per call.
func BenchmarkExecuteBatchStarted(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			answers := make(chan func(), n)
			go func() {
				for f := range answers {
					f()
				}
			}()
			defer close(answers)
			var r tool.Registry
			calls := make([]tool.Call, n)
			for i := range n {
				name := fmt.Sprintf("h%d", i)
				if err := r.Add(&hostLike{name: name, answers: answers}); err != nil {
					b.Fatal(err)
				}
				calls[i] = tool.Call{ID: fmt.Sprint(i), Name: name, Arguments: benchArgs}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			base := &tool.Context{RunID: "run"}
			b.ReportAllocs()
			for b.Loop() {
				rets := r.ExecuteBatch(ctx, base, calls, tool.BatchOptions{})
				if rets[n-1].IsError {
					b.Fatal(rets[n-1].Content)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/call")
		})
	}
}
