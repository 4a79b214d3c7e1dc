package temporal_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/temporal"
	"github.com/starweaver-go/starweaver/core/tool"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// The tests run against a real Temporal server (a dev server in CI, see
// .ci/temporal-up): STARWEAVER_TEMPORAL_ADDRESS names it (default
// 127.0.0.1:7233). Without one they skip, unless
// STARWEAVER_REQUIRE_TEMPORAL=1 says the server must be there.

func address() string {
	if a := os.Getenv("STARWEAVER_TEMPORAL_ADDRESS"); a != "" {
		return a
	}
	return "127.0.0.1:7233"
}

// quietLogger keeps the SDK's warnings about the activities the tests
// fail on purpose out of the test output.
func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
}

// silentLogger is for replays meant to fail.
func silentLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// dial connects to the test server or skips (fails when required).
func dial(t testing.TB) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: address(), Namespace: "default", Logger: quietLogger()})
	if err == nil {
		_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
		if err != nil {
			c.Close()
		}
	}
	if err != nil {
		if os.Getenv("STARWEAVER_REQUIRE_TEMPORAL") == "1" {
			t.Fatalf("no Temporal server on %s (STARWEAVER_REQUIRE_TEMPORAL=1): %v", address(), err)
		}
		t.Skipf("no Temporal server on %s: %v", address(), err)
	}
	t.Cleanup(c.Close)
	return c
}

func uniqueQueue(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// startWorker runs a worker on queue with ta registered (and more, by
// reg) until the test ends.
func startWorker(t testing.TB, c client.Client, queue string, ta *temporal.Agent, reg func(worker.Registry)) {
	t.Helper()
	w := worker.New(c, queue, worker.Options{})
	ta.Register(w)
	if reg != nil {
		reg(w)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

func startOptions(queue string) client.StartWorkflowOptions {
	// The execution timeout bounds what a failed test leaves on the
	// shared server.
	return client.StartWorkflowOptions{ID: uniqueQueue("wf"), TaskQueue: queue, WorkflowExecutionTimeout: 2 * time.Minute}
}

func bounded(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// history is the recorded history of a workflow execution.
func history(t testing.TB, c client.Client, run client.WorkflowRun) *historypb.History {
	t.Helper()
	ctx := bounded(t, 20*time.Second)
	it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}

// The agent of most tests: add (pure), lookup (read-only) and deploy (a
// write that asks for approval), and a model that decides from the
// messages alone, so that any worker process answers alike. Its first
// answer calls the tools the prompt names ("add lookup deploy"), in one
// response; its second lists the returns it got.

func text(s string) model.Message { return model.Response(model.TextPart(s)) }

func prompt(msgs []model.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Parts {
			if p.Kind == model.KindUserPrompt && len(p.Content) > 0 {
				return p.Content[0].Text
			}
		}
	}
	return ""
}

// describe renders a return as the model reads it, for assertions.
func describe(r tool.Return) string {
	if r.IsError {
		return fmt.Sprintf("%s=error(%s: %v)", r.Name, r.ErrorKind(), r.Metadata[tool.MetaMessage])
	}
	b, _ := json.Marshal(r.Content)
	return fmt.Sprintf("%s=%s", r.Name, b)
}

func scriptModel() model.Model {
	return model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		last := msgs[len(msgs)-1]
		if rets := last.Returns(); len(rets) > 0 {
			out := make([]string, len(rets))
			for i, r := range rets {
				out[i] = describe(r)
			}
			return text(strings.Join(out, "; ")), nil
		}
		if prompt(msgs) == "explode" {
			return model.Message{}, errors.New("the model exploded")
		}
		var calls []model.ToolCall
		for i, name := range strings.Fields(prompt(msgs)) {
			var args any = map[string]any{}
			switch {
			case name == "add":
				args = map[string]int{"left": 1, "right": 2}
			case strings.HasPrefix(name, "double:"):
				args = map[string]string{"n": strings.TrimPrefix(name, "double:")}
				name = "double"
			}
			calls = append(calls, model.Call(fmt.Sprintf("c%d", i+1), name, args))
		}
		if len(calls) == 0 {
			return text("nothing to do"), nil
		}
		return model.CallsResponse(calls...), nil
	})
}

func addTool() tool.Tool {
	return tool.Typed("add", "Add two numbers", func(_ context.Context, _ *tool.Context, a struct {
		Left  int `json:"left"`
		Right int `json:"right"`
	}) (tool.Result, error) {
		return tool.JSON(a.Left + a.Right), nil
	}).WithEffect(effect.ClassPure)
}

func doubleTool() tool.Tool {
	return tool.Typed("double", "Double a number", func(_ context.Context, _ *tool.Context, a struct {
		N string `json:"n"`
	}) (tool.Result, error) {
		var n int
		if _, err := fmt.Sscan(a.N, &n); err != nil {
			return tool.Result{}, tool.Feedback("n is not a number")
		}
		return tool.Text(fmt.Sprint(2 * n)), nil
	}).WithEffect(effect.ClassPure)
}

func lookupTool() tool.Tool {
	return tool.New("lookup", "Look something up", map[string]any{"type": "object"},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("found"), nil
		}).WithEffect(effect.ClassReadOnly)
}

func deployTool() tool.Tool {
	return tool.New("deploy", "Deploy a release", map[string]any{"type": "object"},
		func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			if tc.Approval == nil {
				return tool.Result{}, tool.ApprovalRequired("deploy production", nil)
			}
			return tool.Text("deployed by " + fmt.Sprint(tc.Approval.Metadata["decided_by"])), nil
		}).WithEffect(effect.ClassNonIdempotentWrite)
}

func testAgent(t testing.TB, name string, extra ...tool.Tool) *temporal.Agent {
	t.Helper()
	tools := append([]tool.Tool{addTool(), lookupTool(), deployTool(), doubleTool()}, extra...)
	a := agent.NewBuilder(scriptModel()).Name(name).Tool(tools...).MustBuild()
	ta, err := temporal.New(a, temporal.Options{HeartbeatTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ta
}

var _ = agent.StatusCompleted
