package bridge

import (
	"fmt"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// BenchmarkHostRoundTrip measures the latency users feel in sequential
// agents: a host (here a goroutine locked to its own thread, as the
// event loop is) answers each call through the completions pipe, so every
// call crosses both pipes once. "sequential" is one response calling one
// tool n times (model order); "turns" is n responses of one call each, a
// model request per call; "parallel" is one response calling n distinct
// tools, answered one by one as they arrive.
func BenchmarkHostRoundTrip(b *testing.B) {
	const n = 500
	scripts := map[string][]model.Message{}
	var seq []model.ToolCall
	var turns []model.Message
	for i := 0; i < n; i++ {
		seq = append(seq, model.Call(fmt.Sprintf("c%d", i), "t0", map[string]int{"i": i}))
		turns = append(turns, model.CallsResponse(model.Call(fmt.Sprintf("c%d", i), "t0", map[string]int{"i": i})))
	}
	scripts["sequential"] = []model.Message{model.CallsResponse(seq...), model.Response(model.TextPart("done"))}
	scripts["turns"] = append(turns, model.Response(model.TextPart("done")))
	// n distinct tools in one response: a parallel batch.
	scripts["parallel"] = []model.Message{batchOf(n), model.Response(model.TextPart("done"))}
	for _, name := range []string{"sequential", "turns", "parallel"} {
		tools := 1
		if name == "parallel" {
			tools = n
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				a := newTestAgent(b, tools, scripts[name]...)
				b.StartTimer()
				h, _, err := startRun(a.NewSession(), runSpec{Prompt: "go", UsageLimits: &agent.UsageLimits{RequestLimit: 2 * n}})
				if err != nil {
					b.Fatal(err)
				}
				run, _ := lookup[*hostRun](h)
				done := serve(b, run, func(it hostItem) {
					line := "[" + strconv.FormatInt(it.Token, 10) + `,{"ok":true,"content":1}]` + "\n"
					if _, err := syscall.Write(run.wfdIn, []byte(line)); err != nil {
						b.Fatal(err)
					}
				})
				if done.Error != nil || done.Result.Status != "completed" {
					b.Fatalf("done %+v", done)
				}
				handles.remove(h)
				run.close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}
