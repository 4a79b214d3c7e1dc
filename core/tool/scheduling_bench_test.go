package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// benchStarter is a Starter answered by one goroutine, as a host's
// completions arrive on the bridge's reader.
type benchStarter struct {
	name    string
	answers chan<- func(tool.Result, error)
}

func (s *benchStarter) Definition() tool.Definition {
	return tool.Definition{Name: s.name, Parameters: benchSchema}
}

func (s *benchStarter) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, tool.UserError("the blocking path was used")
}

func (s *benchStarter) Start(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
	s.answers <- done
}

// BenchmarkExecuteBatchCapped compares a batch of started calls run
// plainly in parallel with the same batch under a cap (the batch's
// MaxConcurrency, a per-tool Limiter) and ordered by resource keys: every
// path starts the calls without a goroutine per call, so allocations per
// call and peak goroutines stay those of the plain path.
func BenchmarkExecuteBatchCapped(b *testing.B) {
	const n = 1000
	answers := make(chan func(tool.Result, error), n)
	go func() {
		for done := range answers {
			done(tool.Result{Content: "ok"}, nil)
		}
	}()
	b.Cleanup(func() { close(answers) })
	plain, limited, keyed := &tool.Registry{}, &tool.Registry{}, &tool.Registry{}
	calls := make([]tool.Call, n)
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		if err := plain.Add(&benchStarter{name: name, answers: answers}); err != nil {
			b.Fatal(err)
		}
		lim := &benchLimited{benchStarter{name: name, answers: answers}, tool.Config{Concurrency: tool.NewLimiter(1)}}
		if err := limited.Add(lim); err != nil {
			b.Fatal(err)
		}
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: name, Arguments: benchArgs}
	}
	k := &benchLimited{benchStarter{name: "k", answers: answers}, tool.Config{Resource: &tool.ResourceKey{Access: tool.AccessRead, Key: tool.KeyArgument("query")}}}
	if err := keyed.Add(k); err != nil {
		b.Fatal(err)
	}
	keyedCalls := make([]tool.Call, n)
	for i := range keyedCalls {
		keyedCalls[i] = tool.Call{ID: fmt.Sprint(i), Name: "k", Arguments: json.RawMessage(fmt.Sprintf(`{"query":"q%d"}`, i%10))}
	}
	for _, mode := range []struct {
		name  string
		r     *tool.Registry
		calls []tool.Call
		cap   int
	}{
		{"parallel", plain, calls, 0},
		{"batch_cap=8", plain, calls, 8},
		{"tool_limit=1", limited, calls, 0},
		{"resource_keys", keyed, keyedCalls, 0},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			opts := tool.BatchOptions{MaxConcurrency: mode.cap}
			base := &tool.Context{RunID: "run"}
			b.ReportAllocs()
			for b.Loop() {
				rets := mode.r.ExecuteBatch(ctx, base, mode.calls, opts)
				if rets[n-1].IsError {
					b.Fatal(rets[n-1].Content)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/call")
			b.ReportMetric(float64(testing.AllocsPerRun(1, func() { mode.r.ExecuteBatch(ctx, base, mode.calls, opts) }))/n, "allocs/call")
		})
	}
}

// benchLimited is a benchStarter with a Config.
type benchLimited struct {
	benchStarter
	cfg tool.Config
}

func (l *benchLimited) ToolConfig() *tool.Config { return &l.cfg }
