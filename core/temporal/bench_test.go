package temporal_test

import (
	"context"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/temporal"
)

// BenchmarkTemporal compares a run on Temporal (the ready-made workflow on
// a local dev server, one workflow after another) with the same run of
// agent.Run: "turn" is one model turn, "call" two turns and one tool
// call. What Temporal adds per step is the difference.
func BenchmarkTemporal(b *testing.B) {
	c := dial(b)
	queue := uniqueQueue("bench")
	ta := testAgent(b, "bench")
	startWorker(b, c, queue, ta, nil)
	local := agent.NewBuilder(scriptModel()).Tool(addTool()).MustBuild()
	for _, tc := range []struct{ name, prompt, output string }{
		{"turn", "", "nothing to do"},
		{"call", "add", "add=3"},
	} {
		b.Run(tc.name+"/local", func(b *testing.B) {
			for b.Loop() {
				res, err := local.Run(context.Background(), tc.prompt)
				if err != nil || res.Output != tc.output {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
		b.Run(tc.name+"/temporal", func(b *testing.B) {
			ctx := bounded(b, 10*time.Minute)
			for b.Loop() {
				run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: tc.prompt})
				var res temporal.Result
				if err == nil {
					err = run.Get(ctx, &res)
				}
				if err != nil || res.Output != tc.output {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
