package agent_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// wireExecutor hands every request and call to an agent the way a remote
// worker gets them: through JSON, one call per batch. It records what it
// was asked, in order.
type wireExecutor struct {
	worker *agent.Agent
	mu     sync.Mutex
	log    []string
	// lose makes the calls of these tools fail as if their worker was lost.
	lose map[string]bool
}

func (x *wireExecutor) record(s string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.log = append(x.log, s)
}

func (x *wireExecutor) RequestModel(ctx context.Context, req agent.ModelRequest) (model.Message, error) {
	b, _ := json.Marshal(req)
	x.record("model " + string(b))
	return x.worker.RequestModel(ctx, req)
}

func (x *wireExecutor) RunBatch(ctx context.Context, b agent.Batch) ([]tool.Return, error) {
	enc, _ := json.Marshal(b)
	x.record("batch " + string(enc))
	out := make([]tool.Return, len(b.Calls))
	for i, c := range b.Calls {
		if x.lose[c.Name] {
			if c.RetrySafe {
				return nil, errors.New("a retry-safe call is never lost")
			}
			out[i] = agent.LostReturn(c.Call)
			continue
		}
		one := b
		one.Calls = []agent.Call{c}
		var wire agent.Batch
		enc, _ := json.Marshal(one)
		if err := json.Unmarshal(enc, &wire); err != nil {
			return nil, err
		}
		rets, err := x.worker.RunBatch(ctx, wire, nil)
		if err != nil {
			return nil, err
		}
		back, _ := json.Marshal(rets)
		x.record("returns " + string(back))
		var decoded []tool.Return
		if err := json.Unmarshal(back, &decoded); err != nil {
			return nil, err
		}
		out[i] = decoded[0]
	}
	return out, nil
}

func executorAgent(d *deployTool, responses ...model.Message) *agent.Agent {
	return agent.NewBuilder(model.NewTestModel(responses...)).Tool(d.tool(), addTool()).MustBuild()
}

func TestExecutorRunMatchesALocalRun(t *testing.T) {
	script := []model.Message{
		calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2}), model.Call("c2", "add", map[string]int{"left": 3, "right": 4}),
			model.Call("c3", "nope", map[string]int{})),
		text("done"),
	}
	local := mustRun(t, executorAgent(&deployTool{}, script...), "go", agent.WithRunID("run_1"))
	x := &wireExecutor{worker: executorAgent(&deployTool{}, script...)}
	remote := mustRun(t, executorAgent(&deployTool{}, script...), "go", agent.WithRunID("run_1"), agent.WithExecutor(x))
	if remote.Output != "done" || remote.Status != agent.StatusCompleted {
		t.Fatalf("remote run: %+v", remote)
	}
	lj, _ := json.Marshal(local.Messages)
	rj, _ := json.Marshal(remote.Messages)
	if string(lj) != string(rj) {
		t.Fatalf("histories differ:\nlocal  %s\nremote %s", lj, rj)
	}
	// Two model requests and one batch of the two known calls (one
	// returns entry each): the
	// unknown name is answered by the run itself. A repeated undeclared
	// tool makes the batch sequential, as it would locally.
	if len(x.log) != 5 || !strings.HasPrefix(x.log[1], "batch ") || strings.Contains(x.log[1], `"nope"`) {
		t.Fatalf("executor log: %q", x.log)
	}
	var batch agent.Batch
	if err := json.Unmarshal([]byte(strings.TrimPrefix(x.log[1], "batch ")), &batch); err != nil {
		t.Fatal(err)
	}
	if batch.RunID != "run_1" || len(batch.Calls) != 2 || batch.Calls[1].Index != 1 || !batch.Calls[0].RetrySafe ||
		!strings.HasSuffix(batch.Calls[1].Key, "/run/run_1/turn/0/call/1") || !batch.Sequential {
		t.Fatalf("batch: %+v", batch)
	}
}

func TestExecutorRunIsDeterministic(t *testing.T) {
	drive := func() []string {
		d := &deployTool{}
		script := []model.Message{calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2}),
			model.Call("c2", "deploy", map[string]string{"env": "prod"})), text("ok")}
		a := executorAgent(d, script...)
		x := &wireExecutor{worker: executorAgent(d, script...)}
		s, err := a.SessionWithID("conv_fixed", nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), "go", agent.WithRunID("run_fixed"), agent.WithExecutor(x))
		if err != nil || res.Status != agent.StatusWaiting {
			t.Fatalf("run: %+v %v", res, err)
		}
		state, err := s.ExportState()
		if err != nil {
			t.Fatal(err)
		}
		res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: res.Pending[0].ID, Approved: true}}},
			agent.WithExecutor(x))
		if err != nil || res.Output != "ok" {
			t.Fatalf("resume: %+v %v", res, err)
		}
		if d.approval.Load() == nil || d.approval.Load().Status != "approved" {
			t.Fatalf("the approved call ran without its approval: %+v", d.approval.Load())
		}
		return append(x.log, string(state))
	}
	first, second := drive(), drive()
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Fatalf("two drives differ:\n%s\n---\n%s", strings.Join(first, "\n"), strings.Join(second, "\n"))
	}
	// The approved call goes out again, with its approval.
	last := first[len(first)-4]
	if !strings.HasPrefix(last, "batch ") || !strings.Contains(last, `"approval":{"status":"approved"`) {
		t.Fatalf("resumed batch: %s", last)
	}
}

func TestExecutorLostCallGetsTheRecoveryReturn(t *testing.T) {
	d := &deployTool{}
	script := []model.Message{calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2}),
		model.Call("c2", "charge", map[string]int{"cents": 5})), text("ok")}
	charge := tool.New("charge", "Charge a card", map[string]any{"type": "object"},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("charged"), nil
		}).WithEffect(effect.ClassNonIdempotentWrite)
	a := agent.NewBuilder(model.NewTestModel(script...)).Tool(d.tool(), addTool(), charge).MustBuild()
	x := &wireExecutor{worker: agent.NewBuilder(model.NewTestModel(script...)).Tool(d.tool(), addTool(), charge).MustBuild(),
		lose: map[string]bool{"charge": true}}
	res := mustRun(t, a, "go", agent.WithExecutor(x))
	if res.Output != "ok" {
		t.Fatalf("run: %+v", res)
	}
	rets := res.Messages[len(res.Messages)-2]
	ret := rets.Parts[1].Return
	if ret == nil || ret.Name != "charge" || ret.ErrorKind() != tool.ErrorKindCancelled ||
		!strings.Contains(ret.Metadata[tool.MetaMessage].(string), "may have run or not") {
		t.Fatalf("lost call's return: %+v", rets.Parts[1])
	}
}

func TestExecutorBatchErrorLosesEveryCall(t *testing.T) {
	script := []model.Message{calls(model.Call("c1", "add", map[string]int{"left": 1, "right": 2})), text("ok")}
	a := executorAgent(&deployTool{}, script...)
	res := mustRun(t, a, "go", agent.WithExecutor(failingExecutor{a}))
	ret := res.Messages[len(res.Messages)-2].Parts[0].Return
	if ret == nil || ret.ErrorKind() != tool.ErrorKindCancelled {
		t.Fatalf("return: %+v", res.Messages[len(res.Messages)-2])
	}
}

type failingExecutor struct{ a *agent.Agent }

func (f failingExecutor) RequestModel(ctx context.Context, req agent.ModelRequest) (model.Message, error) {
	return f.a.RequestModel(ctx, req)
}

func (failingExecutor) RunBatch(context.Context, agent.Batch) ([]tool.Return, error) {
	return nil, errors.New("worker gone")
}

func TestRunBatchRefusesABatchWithoutItsRun(t *testing.T) {
	a := executorAgent(&deployTool{})
	if _, err := a.RunBatch(context.Background(), agent.Batch{}, nil); !errors.Is(err, agent.ErrState) {
		t.Fatalf("err = %v", err)
	}
	if _, err := a.SessionWithID("", nil); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err = %v", err)
	}
}

// Large outputs are spilled by the worker, so only their reference comes
// back; artifacts are read by the worker that asks the model, so their
// bytes never travel with a request; read_artifact on the worker reads
// what the conversation spilled.
func TestExecutorKeepsArtifactsByReference(t *testing.T) {
	scope, st := acmeStore(t)
	const size = 60 << 10
	whole := bigText(size)
	encoded := base64.StdEncoding.EncodeToString(chartPNG)
	step := 0
	m := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		step++
		switch step {
		case 1:
			return calls(model.Call("c_dump", "dump", map[string]any{}), model.Call("c_chart", "chart", map[string]any{})), nil
		case 2:
			rets := msgs[len(msgs)-1].Returns()
			if src := rets[1].Parts[1].Source; src.Kind != tool.SourceBase64 || src.Data != encoded {
				t.Errorf("the model received %+v", src)
			}
			text := rets[0].Content.(string)
			i := strings.Index(text, "sha256:")
			return calls(model.Call("c_read", agent.ReadArtifactToolName, map[string]any{"ref": text[i : i+71], "offset": 1000, "limit": 50})), nil
		case 3:
			got := contentMap(t, msgs[len(msgs)-1].Returns()[0].Content)
			if got["text"] != whole[1000:1050] {
				t.Errorf("read_artifact on the worker returned %.200v", got)
			}
			return text("ok"), nil
		}
		return model.Message{}, errors.New("too many steps")
	})
	build := func() *agent.Agent {
		return agent.NewBuilder(m).Tool(bigTool(size), chartTool()).Artifacts(scope, st).MustBuild()
	}
	x := &wireExecutor{worker: build()}
	res := mustRun(t, build(), "go", agent.WithExecutor(x))
	if res.Output != "ok" {
		t.Fatalf("run: %+v", res)
	}
	for _, e := range x.log {
		if len(e) > 16<<10 || strings.Contains(e, encoded) {
			t.Fatalf("%d bytes went through the executor: %.300s", len(e), e)
		}
	}
}
