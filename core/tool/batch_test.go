package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// deadlockGuard bounds tests that would otherwise hang when scheduling is
// wrong. It is a failure guard, not synchronisation.
const deadlockGuard = 20 * time.Second

// barrierTools returns n tools that each wait until all n have started.
// Run sequentially, the first would wait forever; the guard context turns
// that into a failure.
func barrierTools(n int, names func(i int) string, opts func(*tool.Function)) []tool.Tool {
	var started atomic.Int32
	all := make(chan struct{})
	var tools []tool.Tool
	for i := range n {
		f := tool.New(names(i), "", nil, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			if started.Add(1) == int32(n) {
				close(all)
			}
			select {
			case <-all:
				return tool.Text(tc.ToolCallID), nil
			case <-ctx.Done():
				return tool.Result{}, tool.UserError("calls did not overlap")
			}
		})
		if opts != nil {
			opts(f)
		}
		tools = append(tools, f)
	}
	return tools
}

func TestBatchRunsInParallelByDefault(t *testing.T) {
	const n = 16
	r := mustRegistry(t, barrierTools(n, func(i int) string { return fmt.Sprintf("t%02d", i) }, nil)...)
	var calls []tool.Call
	for i := n - 1; i >= 0; i-- { // model order differs from name order
		calls = append(calls, call(fmt.Sprintf("id%d", i), fmt.Sprintf("t%02d", i), `{}`))
	}
	if reason := r.SequentialReason(calls, false); reason != "" {
		t.Fatalf("SequentialReason = %q, want parallel", reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	rets := r.ExecuteBatch(ctx, nil, calls, tool.BatchOptions{})
	if len(rets) != n {
		t.Fatalf("%d returns", len(rets))
	}
	for i, ret := range rets {
		wantSuccess(t, ret)
		if ret.ToolCallID != calls[i].ID || ret.Content != calls[i].ID || ret.Name != calls[i].Name {
			t.Fatalf("return %d = %+v, want call %+v (model order)", i, ret, calls[i])
		}
	}
}

func TestFilteredAndStrictToolsRunInParallel(t *testing.T) {
	profiles := []tool.Profile{tool.ProfileFiltered, tool.ProfileStrict, tool.ProfileFiltered}
	i := 0
	tools := barrierTools(3, func(i int) string { return fmt.Sprintf("n%d", i) }, func(f *tool.Function) {
		f.WithDependencies(tool.Dependencies{Profile: profiles[i]})
		i++
	})
	r := mustRegistry(t, tools...)
	calls := []tool.Call{call("a", "n0", `{}`), call("b", "n1", `{}`), call("c", "n2", `{}`)}
	if reason := r.SequentialReason(calls, false); reason != "" {
		t.Fatalf("SequentialReason = %q", reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	for _, ret := range r.ExecuteBatch(ctx, nil, calls, tool.BatchOptions{}) {
		wantSuccess(t, ret)
	}
}

// tracker records execution order and the peak number of concurrent calls.
type tracker struct {
	mu       sync.Mutex
	log      []string
	inFlight int
	peak     int
}

func (tr *tracker) handler(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
	tr.mu.Lock()
	tr.inFlight++
	tr.peak = max(tr.peak, tr.inFlight)
	tr.log = append(tr.log, "start:"+tc.ToolCallID)
	tr.mu.Unlock()
	for range 20 { // give any concurrent call a chance to start
		runtime.Gosched()
	}
	tr.mu.Lock()
	tr.inFlight--
	tr.log = append(tr.log, "end:"+tc.ToolCallID)
	tr.mu.Unlock()
	return tool.Text(tc.ToolCallID), nil
}

func (tr *tracker) tool(name string) *tool.Function { return tool.New(name, "", nil, tr.handler) }

func TestBatchSequentialCases(t *testing.T) {
	type setup struct {
		tools  func(tr *tracker) []tool.Tool
		calls  []tool.Call
		policy bool
		reason string
	}
	names := []string{"a", "b", "c", "d", "e", "f"}
	plainCalls := func(ns ...string) []tool.Call {
		var cs []tool.Call
		for i, n := range ns {
			cs = append(cs, call(fmt.Sprintf("id%d", i), n, `{}`))
		}
		return cs
	}
	plain := func(tr *tracker) []tool.Tool {
		var ts []tool.Tool
		for _, n := range names {
			ts = append(ts, tr.tool(n))
		}
		return ts
	}
	filtered := tool.Dependencies{Profile: tool.ProfileFiltered}
	cases := map[string]setup{
		"policy": {tools: plain, calls: plainCalls("f", "e", "d", "c", "b", "a"), policy: true, reason: tool.SeqPolicy},
		"sequential tool": {tools: func(tr *tracker) []tool.Tool {
			ts := plain(tr)
			ts[2] = tr.tool("c").WithSequential(true)
			return ts
		}, calls: plainCalls("a", "b", "c", "d", "e", "f"), reason: tool.SeqSequentialTool},
		"repeated name": {tools: plain, calls: plainCalls("a", "b", "c", "a", "d", "e"), reason: tool.SeqRepeatedName},
		"legacy mixed with filtered": {tools: func(tr *tracker) []tool.Tool {
			ts := plain(tr)
			ts[0] = tr.tool("a").WithDependencies(filtered)
			ts[1] = tr.tool("b").WithDependencies(tool.Dependencies{Profile: tool.ProfileStrict})
			return ts
		}, calls: plainCalls("a", "b", "c", "d", "e", "f"), reason: tool.SeqMixedProfiles},
		"strict mixed with an unknown name": {tools: func(tr *tracker) []tool.Tool {
			return []tool.Tool{tr.tool("a").WithDependencies(tool.Dependencies{Profile: tool.ProfileStrict}),
				tr.tool("b").WithDependencies(filtered)}
		}, calls: plainCalls("a", "b", "missing"), reason: tool.SeqMixedProfiles},
		"context capability in metadata": {tools: func(tr *tracker) []tool.Tool {
			var ts []tool.Tool
			for _, n := range names {
				f := tr.tool(n).WithDependencies(filtered)
				if n == "d" {
					f.WithDependencies(tool.Dependencies{Profile: tool.ProfileFiltered, ContextCapabilities: []string{"starweaver.context.usage"}})
				}
				ts = append(ts, f)
			}
			return ts
		}, calls: plainCalls("a", "b", "c", "d", "e", "f"), reason: tool.SeqContextCapable},
		"context capability in config": {tools: func(tr *tracker) []tool.Tool {
			ts := plain(tr)
			f := tr.tool("e")
			tool.ConfigOf(f).Capabilities = []string{"starweaver.context.tasks"}
			ts[4] = f
			return ts
		}, calls: plainCalls("a", "b", "c", "d", "e", "f"), reason: tool.SeqContextCapable},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var tr tracker
			r := mustRegistry(t, tc.tools(&tr)...)
			if got := r.SequentialReason(tc.calls, tc.policy); got != tc.reason {
				t.Fatalf("SequentialReason = %q, want %q", got, tc.reason)
			}
			rets := r.ExecuteBatch(context.Background(), nil, tc.calls, tool.BatchOptions{Sequential: tc.policy})
			var want []string
			for i, c := range tc.calls {
				if rets[i].ToolCallID != c.ID {
					t.Fatalf("return %d is %q, want %q", i, rets[i].ToolCallID, c.ID)
				}
				if c.Name == "missing" {
					wantKind(t, rets[i], tool.ErrorKindNotFound)
					continue
				}
				wantSuccess(t, rets[i])
				want = append(want, "start:"+c.ID, "end:"+c.ID)
			}
			if tr.peak != 1 {
				t.Fatalf("peak concurrency = %d, want 1", tr.peak)
			}
			if !slices.Equal(tr.log, want) {
				t.Fatalf("execution log = %v, want %v", tr.log, want)
			}
		})
	}
}

func TestSequentialReasonEdges(t *testing.T) {
	var tr tracker
	r := mustRegistry(t, tr.tool("a").WithSequential(true), tr.tool("b"))
	if got := r.SequentialReason(nil, false); got != "" {
		t.Fatalf("empty batch: %q", got)
	}
	if got := r.SequentialReason([]tool.Call{call("1", "a", `{}`)}, false); got != "" {
		t.Fatalf("one call: %q", got)
	}
	if got := r.SequentialReason([]tool.Call{call("1", "a", `{}`)}, true); got != tool.SeqPolicy {
		t.Fatalf("one call with policy: %q", got)
	}
	// WithSequential(false) is parallel.
	r2 := mustRegistry(t, tr.tool("a").WithSequential(false), tr.tool("b"))
	if got := r2.SequentialReason([]tool.Call{call("1", "a", `{}`), call("2", "b", `{}`)}, false); got != "" {
		t.Fatalf("sequential=false: %q", got)
	}
	// Unknown names alone are legacy and parallel.
	if got := r2.SequentialReason([]tool.Call{call("1", "x", `{}`), call("2", "y", `{}`)}, false); got != "" {
		t.Fatalf("unknown names: %q", got)
	}
	// Repeated names are found in large batches too.
	var many []tool.Call
	for i := range 200 {
		many = append(many, call(fmt.Sprint(i), fmt.Sprintf("n%d", i), `{}`))
	}
	if got := r2.SequentialReason(many, false); got != "" {
		t.Fatalf("200 distinct names: %q", got)
	}
	many = append(many, call("dup", "n150", `{}`))
	if got := r2.SequentialReason(many, false); got != tool.SeqRepeatedName {
		t.Fatalf("repeated name in a large batch: %q", got)
	}
}

func TestMaxConcurrency(t *testing.T) {
	const n, limit = 12, 3
	var mu sync.Mutex
	inFlight, peak := 0, 0
	reached := make(chan struct{})
	var tools []tool.Tool
	var calls []tool.Call
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		tools = append(tools, tool.New(name, "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			mu.Lock()
			inFlight++
			if inFlight > peak {
				peak = inFlight
				if peak == limit {
					close(reached)
				}
			}
			mu.Unlock()
			defer func() {
				mu.Lock()
				inFlight--
				mu.Unlock()
			}()
			// Wait until the cap has been reached once, so that the peak is
			// exactly the cap when the cap is honoured.
			select {
			case <-reached:
				return tool.Text("ok"), nil
			case <-ctx.Done():
				return tool.Result{}, tool.UserError("cap never reached")
			}
		}))
		calls = append(calls, call(fmt.Sprint(i), name, `{}`))
	}
	r := mustRegistry(t, tools...)
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	rets := r.ExecuteBatch(ctx, nil, calls, tool.BatchOptions{MaxConcurrency: limit})
	for i, ret := range rets {
		wantSuccess(t, ret)
		if ret.ToolCallID != fmt.Sprint(i) {
			t.Fatalf("return %d out of order", i)
		}
	}
	if peak != limit {
		t.Fatalf("peak concurrency = %d, want %d", peak, limit)
	}
}

func TestExecuteBatchEdges(t *testing.T) {
	r := mustRegistry(t, tool.New("a", "", nil, okHandler))
	if rets := r.ExecuteBatch(context.Background(), nil, nil, tool.BatchOptions{}); len(rets) != 0 {
		t.Fatalf("empty batch returned %d", len(rets))
	}
	rets := r.ExecuteBatch(context.Background(), nil, []tool.Call{call("1", "zzz", `{}`), call("2", "a", `{`), call("3", "a", `{}`)}, tool.BatchOptions{})
	wantKind(t, rets[0], tool.ErrorKindNotFound)
	wantKind(t, rets[1], tool.ErrorKindInvalidArguments)
	wantSuccess(t, rets[2])
	if rets[0].IsError {
		t.Fatal("not_found must not be is_error")
	}
}

// The batch gives every call its own context copy.
func TestBatchContextsAreSeparate(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	mk := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			mu.Lock()
			seen[tc.ToolCallID] = tc.ToolName + "/" + tc.RunID
			mu.Unlock()
			return tool.Text("ok"), nil
		})
	}
	r := mustRegistry(t, mk("a"), mk("b"), mk("c"))
	base := &tool.Context{RunID: "r1"}
	r.ExecuteBatch(context.Background(), base, []tool.Call{call("1", "a", `{}`), call("2", "b", `{}`), call("3", "c", `{}`)},
		tool.BatchOptions{Retries: map[string]int{"b": 1}})
	want := map[string]string{"1": "a/r1", "2": "b/r1", "3": "c/r1"}
	for k, v := range want {
		if seen[k] != v {
			t.Fatalf("seen = %v", seen)
		}
	}
	if base.ToolCallID != "" || base.Retry != 0 {
		t.Fatal("batch modified the base context")
	}
}

// TestSequentialCheckGrowsCallByCall checks the incremental form a
// streaming response uses against the expected reason of every prefix: a
// single call is never sequential, a reason found call by call wins over
// the mix of profiles, and names past the first 16 are still compared.
func TestSequentialCheckGrowsCallByCall(t *testing.T) {
	var tr tracker
	filtered := tool.Dependencies{Profile: tool.ProfileFiltered}
	tools := []tool.Tool{
		tr.tool("a").WithDependencies(filtered),
		tr.tool("b"),
		tr.tool("c"),
		tr.tool("s").WithSequential(true),
	}
	for i := 0; i < 20; i++ {
		tools = append(tools, tr.tool(fmt.Sprintf("n%d", i)))
	}
	r := mustRegistry(t, tools...)
	cases := map[string]struct {
		names []string
		want  []string // the reason after each call
	}{
		"mixed, then a repeat": {
			names: []string{"a", "b", "a", "c"},
			want:  []string{"", tool.SeqMixedProfiles, tool.SeqRepeatedName, tool.SeqRepeatedName},
		},
		"sequential tool alone, then with another": {
			names: []string{"s", "b"},
			want:  []string{"", tool.SeqSequentialTool},
		},
		"an unknown name mixed with filtered": {
			names: []string{"missing", "b", "a"},
			want:  []string{"", "", tool.SeqMixedProfiles},
		},
	}
	var many []string
	for i := 0; i < 20; i++ {
		many = append(many, fmt.Sprintf("n%d", i))
	}
	manyWant := make([]string, 21)
	manyWant[20] = tool.SeqRepeatedName
	cases["a repeat after 20 names"] = struct {
		names []string
		want  []string
	}{append(slices.Clone(many), "n3"), manyWant}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := r.NewSequentialCheck()
			var calls []tool.Call
			for i, n := range tc.names {
				c := call(fmt.Sprintf("id%d", i), n, `{}`)
				calls = append(calls, c)
				if got := s.Add(c); got != tc.want[i] {
					t.Fatalf("after %v: Add = %q, want %q", tc.names[:i+1], got, tc.want[i])
				}
				if got := r.SequentialReason(calls, false); got != tc.want[i] {
					t.Fatalf("after %v: SequentialReason = %q, want %q", tc.names[:i+1], got, tc.want[i])
				}
			}
		})
	}
}
