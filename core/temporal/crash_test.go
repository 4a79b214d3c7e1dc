package temporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/temporal"
	"github.com/starweaver-go/starweaver/core/tool"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// The crash test's worker process is this test binary run again with
// these variables set (see TestHelperWorker).
const (
	helperQueue = "STARWEAVER_TEMPORAL_HELPER_QUEUE"
	helperDir   = "STARWEAVER_TEMPORAL_HELPER_DIR"
)

// crashAgent has two tools that write a line to a file in dir when they
// start: charge, a non-idempotent write, and lookup, a read; with block
// they then wait (for the kill of their process).
func crashAgent(t testing.TB, dir string, block bool) *temporal.Agent {
	t.Helper()
	effectful := func(name string, class tool.EffectClass, answer string) tool.Tool {
		return tool.New(name, name, map[string]any{"type": "object"},
			func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
				f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
				if err != nil {
					return tool.Result{}, err
				}
				_, err = f.WriteString("started\n")
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return tool.Result{}, err
				}
				if block {
					select {
					case <-ctx.Done():
					case <-time.After(time.Minute):
					}
				}
				return tool.Text(answer), nil
			}).WithEffect(class)
	}
	a := agent.NewBuilder(scriptModel()).Name("crash").
		Tool(effectful("charge", effect.ClassNonIdempotentWrite, "charged"), effectful("lookup", effect.ClassReadOnly, "found")).
		MustBuild()
	ta, err := temporal.New(a, temporal.Options{HeartbeatTimeout: 2 * time.Second,
		RetryPolicy: &sdktemporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumAttempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	return ta
}

// TestHelperWorker is the worker process the crash test kills: it runs
// only when the crash test starts it.
func TestHelperWorker(t *testing.T) {
	queue := os.Getenv(helperQueue)
	if queue == "" {
		t.Skip("the crash test's worker process")
	}
	c := dial(t)
	// A short sticky timeout: the workflow's next task moves on to the
	// other worker soon after this one is killed.
	w := worker.New(c, queue, worker.Options{StickyScheduleToStartTimeout: time.Second})
	crashAgent(t, os.Getenv(helperDir), true).Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Killed long before; the bound keeps a lost process from staying.
	time.Sleep(2 * time.Minute)
}

func lines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

func TestKilledWorkerMidBatch(t *testing.T) {
	c := dial(t)
	queue := uniqueQueue("crash")
	dir := t.TempDir()
	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWorker$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperQueue+"="+queue, helperDir+"="+dir, "STARWEAVER_TEMPORAL_ADDRESS="+address())
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})

	ta := crashAgent(t, dir, false)
	ctx := bounded(t, 90*time.Second)
	run, err := c.ExecuteWorkflow(ctx, startOptions(queue), ta.WorkflowName(), temporal.WorkflowInput{Prompt: "charge lookup"})
	if err != nil {
		t.Fatal(err)
	}
	// Both calls started on the helper (their effects are written), and
	// block there: kill it.
	deadline := time.Now().Add(30 * time.Second)
	for lines(filepath.Join(dir, "charge")) == 0 || lines(filepath.Join(dir, "lookup")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the calls never started on the worker process; its output:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true

	// A second worker finishes the workflow.
	startWorker(t, c, queue, ta, nil)
	var res temporal.Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	// The charge is not run again, and the model reads the lost-call
	// return; the lookup ran again and answered.
	if n := lines(filepath.Join(dir, "charge")); n != 1 {
		t.Fatalf("charge started %d times", n)
	}
	if n := lines(filepath.Join(dir, "lookup")); n != 2 {
		t.Fatalf("lookup started %d times", n)
	}
	want := `charge=error(cancelled: the run was interrupted while this call ran or was about to run (its worker stopped), ` +
		`so it may have run or not; check its effect before calling it again); lookup="found"`
	if res.Status != agent.StatusCompleted || res.Output != want {
		t.Fatalf("result: %s %q %q", res.Status, res.Output, res.Error)
	}
}
