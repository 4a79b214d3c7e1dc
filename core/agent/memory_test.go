package agent_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// sessionScript answers runs of one tool call each: call, then text.
func sessionScript(runs int) []model.Message {
	script := make([]model.Message, 0, 2*runs)
	for range runs {
		script = append(script, calls(model.Call("", "note", nil)), text("noted"))
	}
	return script
}

// noteTool returns every surface, so that each run's returns are projected.
func noteTool() tool.Tool {
	return tool.New("note", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "ok", AppValue: 1, PrivateMetadata: map[string]any{"p": 1}}, nil
	})
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestSessionMemoryIsLinear runs 2 000 runs on one session with a
// TestModel that records every request and keeps every result, as a test
// would. Copying the history per request or per result made this
// quadratic (3 GB); sharing the append-only history keeps it linear.
func TestSessionMemoryIsLinear(t *testing.T) {
	const runs = 2000
	m := model.NewTestModel(sessionScript(runs)...)
	s := agent.NewBuilder(m).Tool(noteTool()).MustBuild().NewSession()
	ctx := context.Background()
	results := make([]*agent.RunResult, 0, runs)
	base := heapAlloc()
	var at500 uint64
	for i := range runs {
		res, err := s.Run(ctx, "go")
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
		if i == 499 {
			at500 = heapAlloc()
		}
	}
	at2000 := heapAlloc()

	// Structural: requests and results share a few backing arrays (the
	// history's growth steps), instead of one copy each.
	arrays := map[*model.Message]bool{}
	reqs := m.Requests()
	for _, r := range reqs {
		arrays[&r.Messages[0]] = true
	}
	for _, r := range results {
		arrays[&r.Messages[0]] = true
	}
	if len(reqs) != 2*runs || len(arrays) > 64 {
		t.Fatalf("%d requests and %d results use %d distinct histories; want a few growth steps", len(reqs), len(results), len(arrays))
	}
	// The models got the projection, the results the full history.
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Returns()[0]; got.AppValue != nil || got.PrivateMetadata != nil {
		t.Fatalf("the model received host surfaces: %+v", got)
	}
	if got := results[runs-1].Returns()[0]; got.AppValue == nil || got.PrivateMetadata == nil {
		t.Fatalf("the result lost host surfaces: %+v", got)
	}

	// Memory: 4x the runs must cost about 4x the memory (quadratic growth
	// gives 16x); the bound is generous.
	grow500, grow2000 := float64(at500)-float64(base), float64(at2000)-float64(base)
	if grow500 <= 0 {
		grow500 = 1
	}
	if ratio := grow2000 / grow500; ratio > 8 {
		t.Fatalf("heap grew %.0f bytes over 500 runs and %.0f over 2000 (x%.1f): not linear", grow500, grow2000, ratio)
	}
	runtime.KeepAlive(results)
}

// A failed run appends past the session's history, into its spare
// capacity; the next run must not overwrite what the failed run's result
// and the model kept. Sessions of several lengths cover the capacities.
func TestFailedRunKeepsWhatItHandedOut(t *testing.T) {
	ctx := context.Background()
	for completed := range 6 {
		script := make([]model.Message, 0, completed+2)
		for range completed {
			script = append(script, text("fine"))
		}
		script = append(script, calls(model.Call("x", "missing_tool", nil)), text("after"))
		m := model.NewTestModel(script...)
		s := agent.NewBuilder(m).MaxRetries(0).MustBuild().NewSession()
		for range completed {
			if _, err := s.Run(ctx, "ok"); err != nil {
				t.Fatal(err)
			}
		}
		failed, err := s.Run(ctx, "fail")
		if err == nil || failed.Status != agent.StatusFailed {
			t.Fatalf("run: %v", err)
		}
		kept, _ := json.Marshal(failed.Messages)
		seen, _ := json.Marshal(m.Requests()[completed].Messages)
		if _, err := s.Run(ctx, "next"); err != nil {
			t.Fatal(err)
		}
		keptAfter, _ := json.Marshal(failed.Messages)
		seenAfter, _ := json.Marshal(m.Requests()[completed].Messages)
		if string(kept) != string(keptAfter) || string(seen) != string(seenAfter) {
			t.Fatalf("after %d runs, the next run overwrote a failed run's messages:\n%s\n%s\n%s\n%s", completed, kept, keptAfter, seen, seenAfter)
		}
		// The failed run keeps its request, the call and its return.
		if n := len(s.Messages()); n != 2*completed+5 {
			t.Fatalf("history has %d messages, want %d", n, 2*completed+5)
		}
	}
}

// BenchmarkSessionRuns measures one run (a tool call, then text) on a
// session whose history grows with every run, with a TestModel recording
// every request: the cost per run must not grow with the history.
func BenchmarkSessionRuns(b *testing.B) {
	m := model.NewTestModel(sessionScript(b.N)...)
	s := agent.NewBuilder(m).Tool(noteTool()).MustBuild().NewSession()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Run(ctx, "go"); err != nil {
			b.Fatal(err)
		}
	}
}
