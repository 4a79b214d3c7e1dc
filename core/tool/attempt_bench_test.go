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
			runBatches(ctx, b, &r, calls)
		})
	}
}

// ownGoroutine is a hostLike without its Start: each call waits for its
// answer on a goroutine of its own, the path every hooked call of a
// Starter took before such calls were started.
type ownGoroutine struct{ h *hostLike }

func (o ownGoroutine) Definition() tool.Definition { return o.h.Definition() }
func (o ownGoroutine) Cooperative() bool           { return true }

func (o ownGoroutine) Call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	ch := make(chan tool.Result, 1)
	o.h.Start(ctx, tc, args, func(res tool.Result, _ error) { ch <- res })
	return <-ch, nil
}

// BenchmarkExecuteBatchHooked measures a parallel batch of 1000 host-like
// calls with a global hook, started (the batch parks no goroutine per
// call) or each on a goroutine of its own (as before hooked calls of a
// Starter were started): with a hook answered by the same goroutine as
// the calls (a host hook, in its Start forms) or with a Go hook.
func BenchmarkExecuteBatchHooked(b *testing.B) {
	const n = 1000
	answers := make(chan func(), 4*n)
	go func() {
		for f := range answers {
			f()
		}
	}()
	b.Cleanup(func() { close(answers) })
	hostHook := tool.Hook{
		StartBefore: func(_ context.Context, _ *tool.Context, _ map[string]any, done func(error)) {
			answers <- func() { done(nil) }
		},
		StartAfter: func(_ context.Context, _ *tool.Context, _ *tool.Outcome, done func(error)) {
			answers <- func() { done(nil) }
		},
	}
	goHook := tool.Hook{
		Before: func(context.Context, *tool.Context, map[string]any) error { return nil },
		After:  func(context.Context, *tool.Context, *tool.Outcome) error { return nil },
	}
	calls := make([]tool.Call, n)
	for i := range n {
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: fmt.Sprintf("h%d", i), Arguments: benchArgs}
	}
	for _, mode := range []struct {
		name    string
		started bool
		hook    tool.Hook
	}{
		{"started/host_hook", true, hostHook},
		{"own_goroutine/host_hook", false, hostHook},
		{"started/go_hook", true, goHook},
		{"own_goroutine/go_hook", false, goHook},
	} {
		b.Run(mode.name, func(b *testing.B) {
			var r tool.Registry
			for _, c := range calls {
				h := &hostLike{name: c.Name, answers: answers}
				var t tool.Tool = h
				if !mode.started {
					t = ownGoroutine{h}
				}
				if err := r.Add(t); err != nil {
					b.Fatal(err)
				}
			}
			r.AddHook(mode.hook)
			ctx := context.Background()
			runBatches(ctx, b, &r, calls)
			base := &tool.Context{RunID: "run"}
			b.ReportMetric(float64(testing.AllocsPerRun(1, func() { r.ExecuteBatch(ctx, base, calls, tool.BatchOptions{}) }))/n, "allocs/call")
		})
	}
}

// runBatches times ExecuteBatch of calls over b.Loop, reporting ns/call; the
// last call must succeed.
func runBatches(ctx context.Context, b *testing.B, r *tool.Registry, calls []tool.Call) {
	b.Helper()
	base := &tool.Context{RunID: "run"}
	b.ReportAllocs()
	for b.Loop() {
		rets := r.ExecuteBatch(ctx, base, calls, tool.BatchOptions{})
		if last := rets[len(rets)-1]; last.IsError {
			b.Fatal(last.Content)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(calls)), "ns/call")
}
