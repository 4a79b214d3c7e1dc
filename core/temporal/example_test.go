package temporal_test

import (
	"context"
	"log"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/temporal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// A worker that runs the agent's activities, the ready-made workflow and
// a workflow of its own that calls Run, waits for a "decision" update
// while the run waits for people, and resumes it.
func Example() {
	a := agent.NewBuilder(model.TextModel("Hello!")).Name("support").MustBuild()
	ta, err := temporal.New(a, temporal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, "agents", worker.Options{})
	ta.Register(w)
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, prompt string) (*temporal.Result, error) {
		var answers []agent.Resolution
		err := workflow.SetUpdateHandler(ctx, "decision", func(ctx workflow.Context, r agent.Resolution) error {
			answers = append(answers, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
		res, err := ta.Run(ctx, prompt)
		for err == nil && res.Status == agent.StatusWaiting {
			// res.Pending says what the run waits for; the workflow
			// sleeps, at no cost, until someone answers.
			if err := workflow.Await(ctx, func() bool { return len(answers) > 0 }); err != nil {
				return nil, err
			}
			r := answers[0]
			answers = answers[1:]
			res, err = ta.Resume(ctx, res, r)
		}
		return res, err
	}, workflow.RegisterOptions{Name: "support-chat"})
	if err := w.Start(); err != nil {
		log.Fatal(err)
	}
	defer w.Stop()

	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "agents"}, "support-chat", "Hi")
	if err != nil {
		log.Fatal(err)
	}
	var res temporal.Result
	if err := run.Get(context.Background(), &res); err != nil {
		log.Fatal(err)
	}
	log.Println(res.Output)
}
