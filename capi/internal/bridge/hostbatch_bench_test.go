//go:build cgo

// The host of these benchmarks is C (pipehost).

package bridge

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/capi/internal/pipehost"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// BenchmarkHostBatch measures a run whose model asks for n trivial host
// calls at once, through both pipes, as the Python bridge drives it: the
// host runs on a thread Go does not schedule (pipehost.Host), reads
// whatever items have arrived and answers them with one write per read,
// as the bridge flushes its completions once per loop iteration. With
// work=0 the host answers at once, so the runtime sets the pace; with
// work=10µs it spends about what the event loop spends on a trivial async
// call, so the runtime's share is what it adds to the host's time.
// cpu-ns/call is the runtime's own CPU per call (the host's thread not
// counted), which on a machine with few cores is wall time taken from the
// host; head-ns/op is the time to the first call item and tail-ns/op the
// time from the last completions to the done item. "sequential" is the
// same response calling one tool n times, which runs in model order: each
// call crosses both pipes alone.
func BenchmarkHostBatch(b *testing.B) {
	const n = 200
	for _, c := range []struct {
		name string
		work time.Duration
		tool func(i int) int
	}{
		{fmt.Sprintf("calls=%d/work=0s", n), 0, func(i int) int { return i }},
		{fmt.Sprintf("calls=%d/work=10µs", n), 10 * time.Microsecond, func(i int) int { return i }},
		{fmt.Sprintf("calls=%d/sequential", n), 0, func(int) int { return 0 }},
	} {
		work := c.work
		b.Run(c.name, func(b *testing.B) {
			calls := make([]model.ToolCall, n)
			for i := range calls {
				calls[i] = model.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: fmt.Sprintf("t%d", c.tool(i)), Arguments: []byte(`{}`)}
			}
			// One agent serves every run (building one costs more than a
			// run); each run gets a fresh TestModel, as the bridge's does.
			script := []model.Message{model.CallsResponse(calls...), model.Response(model.TextPart("done"))}
			h := handles.add(&modelHandle{m: &freshTestModel{script: script}})
			defer handles.remove(h)
			spec := agentSpec{Model: h}
			for i := 0; i < n; i++ {
				spec.Tools = append(spec.Tools, toolSpec{ID: int64(i), Definition: tool.Definition{Name: fmt.Sprintf("t%d", i)}})
			}
			a, err := buildAgent(spec)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var cpu, head, tail time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sess := a.NewSession()
				before, start := cpuTime(), pipehost.Now()
				rh, run, err := startRun(sess, runSpec{Prompt: "go"})
				if err != nil {
					b.Fatal(err)
				}
				host, err := pipehost.StartHost(run.rfd, run.wfdIn, work)
				if err != nil {
					b.Fatal(err)
				}
				rep, err := host.Wait()
				if err != nil || rep.Answered != n {
					b.Fatalf("answered %d calls, want %d: %v", rep.Answered, n, err)
				}
				cpu += cpuTime() - before - rep.CPU
				head += rep.First - start
				tail += rep.Done - rep.Last
				b.StopTimer()
				handles.remove(rh)
				run.close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/call")
			b.ReportMetric(float64(head.Nanoseconds())/float64(b.N), "head-ns/op")
			b.ReportMetric(float64(tail.Nanoseconds())/float64(b.N), "tail-ns/op")
		})
	}
}

// freshTestModel is a TestModel of script, replaced by a fresh one once
// its script is used up, so that one agent serves many runs.
type freshTestModel struct {
	script []model.Message
	tm     *model.TestModel
}

func (m *freshTestModel) current() *model.TestModel {
	if m.tm == nil || m.tm.Remaining() == 0 {
		m.tm = model.NewTestModel(m.script...)
	}
	return m.tm
}

func (m *freshTestModel) Request(ctx context.Context, msgs []model.Message, p model.Params) (model.Message, error) {
	return m.current().Request(ctx, msgs, p)
}

func (m *freshTestModel) Stream(ctx context.Context, msgs []model.Message, p model.Params, d model.DeltaHandler) (model.Message, error) {
	return m.current().Stream(ctx, msgs, p, d)
}

// cpuTime is the CPU the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
