package batch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// call is one entry of tool_calls.
func call(name string, params any) map[string]any {
	return map[string]any{"tool": name, "parameters": params}
}

// batchModel answers with one batch call of calls, then "done".
func batchModel(calls ...any) *model.TestModel {
	return model.NewTestModel(
		model.CallsResponse(model.Call("b1", batch.Name, map[string]any{"tool_calls": calls})),
		model.Response(model.TextPart("done")),
	)
}

// echo returns its "v" argument and records the context of each call.
type recorder struct {
	mu    sync.Mutex
	calls []tool.Context
}

func (r *recorder) tool(name string) *tool.Function {
	return tool.New(name, "echo", map[string]any{
		"type":       "object",
		"properties": map[string]any{"v": map[string]any{"type": "string"}},
		"required":   []any{"v"},
	}, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		r.mu.Lock()
		r.calls = append(r.calls, *tc)
		r.mu.Unlock()
		var in struct{ V string }
		_ = json.Unmarshal(args, &in)
		return tool.Text(name + ":" + in.V), nil
	})
}

func (r *recorder) ids() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, c.ToolCallID)
	}
	slices.Sort(out)
	return out
}

func run(t *testing.T, b *agent.Builder) (*agent.RunResult, *agent.Session) {
	t.Helper()
	s := b.BatchTool(true).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	return res, s
}

// output is the batch call's content, from the first return of res.
func output(t *testing.T, res *agent.RunResult) batch.Output {
	t.Helper()
	for _, r := range res.Returns() {
		if r.Name == batch.Name {
			if k := r.ErrorKind(); k != "" {
				t.Fatalf("batch failed: %s %v", k, r.Content)
			}
			out, ok := r.Content.(batch.Output)
			if !ok {
				t.Fatalf("batch content is %T", r.Content)
			}
			return out
		}
	}
	t.Fatal("no batch return")
	return batch.Output{}
}

func TestBatchRunsChildrenWithTheirIDsAndSortsResults(t *testing.T) {
	rec := &recorder{}
	res, _ := run(t, agent.NewBuilder(batchModel(call("a", map[string]any{"v": "1"}), call("b", map[string]any{"v": "2"}), call("a", map[string]any{"v": "3"}))).
		Tool(rec.tool("a"), rec.tool("b")))
	got := output(t, res)
	want := batch.Output{Results: []batch.Entry{
		{Index: 0, Tool: "a", Success: true, Result: "a:1"},
		{Index: 1, Tool: "b", Success: true, Result: "b:2"},
		{Index: 2, Tool: "a", Success: true, Result: "a:3"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if ids := rec.ids(); !slices.Equal(ids, []string{"b1:00", "b1:01", "b1:02"}) {
		t.Fatalf("child ids %v", ids)
	}
	for _, c := range rec.calls {
		want := fmt.Sprintf("b1:%02d", c.CallIndex)
		if c.ToolCallID != want {
			t.Fatalf("call %s has index %d", c.ToolCallID, c.CallIndex)
		}
		if !strings.HasSuffix(c.IdempotencyKey(), fmt.Sprintf("/call/0/child/%d", c.CallIndex)) {
			t.Fatalf("child key %q", c.IdempotencyKey())
		}
	}
	b, _ := json.Marshal(got)
	if want := `{"results":[{"index":0,"tool":"a","success":true,"duration_ms":0,"result":"a:1"},` +
		`{"index":1,"tool":"b","success":true,"duration_ms":0,"result":"b:2"},` +
		`{"index":2,"tool":"a","success":true,"duration_ms":0,"result":"a:3"}]}`; string(b) != want {
		t.Fatalf("wire %s", b)
	}
}

func TestBatchArgumentErrorsUseTheReferenceTexts(t *testing.T) {
	cases := []struct {
		args any
		want string
	}{
		{map[string]any{}, "Missing required parameter: tool_calls"},
		{map[string]any{"tool_calls": "x"}, "Invalid tool_calls: expected an array of calls"},
		{map[string]any{"tool_calls": []any{}}, "Invalid tool_calls: expected at least one call"},
		{map[string]any{"tool_calls": []any{"x"}}, "Invalid tool_calls[0]: expected an object with tool and parameters"},
		{map[string]any{"tool_calls": []any{call("a", map[string]any{}), map[string]any{"tool": ""}}}, "Invalid tool_calls[1].tool: expected non-empty string"},
		{map[string]any{"tool_calls": []any{map[string]any{"tool": 3}}}, "Invalid tool_calls[0].tool: expected non-empty string"},
		{map[string]any{"tool_calls": []any{call("a", "x")}}, "Invalid tool_calls[0].parameters: expected an object"},
	}
	for _, c := range cases {
		rec := &recorder{}
		m := model.NewTestModel(model.CallsResponse(model.Call("b1", batch.Name, c.args)), model.Response(model.TextPart("done")))
		res, _ := run(t, agent.NewBuilder(m).Tool(rec.tool("a")))
		ret := res.Returns()[0]
		if ret.ErrorKind() != tool.ErrorKindInvalidArguments || ret.Metadata[tool.MetaMessage] != c.want {
			t.Errorf("%v: got %s %v, want %q", c.args, ret.ErrorKind(), ret.Metadata[tool.MetaMessage], c.want)
		}
		if len(rec.calls) != 0 {
			t.Errorf("%v: a child ran", c.args)
		}
	}
}

func TestBatchFailsNestedAndUnavailableCallsOneByOne(t *testing.T) {
	rec := &recorder{}
	calls := []any{
		call("batch", map[string]any{"tool_calls": []any{call("a", map[string]any{"v": "x"})}}),
		call("nope", map[string]any{}),
		call("a", map[string]any{"v": "bad", "extra": 1.5}),
		call("a", map[string]any{}),
	}
	for len(calls) < batch.MaxCalls {
		calls = append(calls, call("b", map[string]any{"v": fmt.Sprint(len(calls))}))
	}
	res, _ := run(t, agent.NewBuilder(batchModel(calls...)).Tool(rec.tool("a"), rec.tool("b")))
	got := output(t, res)
	if len(got.Results) != batch.MaxCalls {
		t.Fatalf("%d results", len(got.Results))
	}
	want := map[int]string{
		0: "Tool 'batch' is not allowed inside batch",
		1: "Tool 'nope' is unavailable in this session",
		3: "missing property 'v'",
	}
	for i, e := range got.Results {
		if e.Index != i || e.DurationMS != 0 {
			t.Fatalf("entry %d: %+v", i, e)
		}
		msg, failed := want[i]
		switch {
		case failed && (e.Success || !strings.Contains(e.Error, msg) || e.Result != nil):
			t.Errorf("entry %d: %+v, want error %q", i, e, msg)
		case !failed && (!e.Success || e.Error != ""):
			t.Errorf("entry %d: %+v, want success", i, e)
		}
	}
	if len(rec.calls) != 22 { // index 2 and 4..24
		t.Fatalf("%d children ran", len(rec.calls))
	}
	md := res.Returns()[0].Metadata[batch.MetaCalls].([]any)
	if c := md[1].(map[string]any); c["error_kind"] != "not_found" || c["tool_call_id"] != "b1:01" {
		t.Fatalf("metadata %v", c)
	}
}

// A batch of more than MaxCalls calls is one refusal of bounded size,
// whatever its count, and none of its calls runs.
func TestBatchOverTheLimitIsOneBoundedRefusal(t *testing.T) {
	for _, n := range []int{batch.MaxCalls + 1, 10_000, 100_000} {
		rec := &recorder{}
		calls := make([]any, n)
		for i := range calls {
			calls[i] = call("a", map[string]any{"v": fmt.Sprint(i)})
		}
		res, _ := run(t, agent.NewBuilder(batchModel(calls...)).Tool(rec.tool("a")))
		if res.Status != agent.StatusCompleted || res.Output != "done" {
			t.Fatalf("%d calls: %+v", n, res)
		}
		ret := res.Returns()[0]
		msg, _ := ret.Metadata[tool.MetaMessage].(string)
		if ret.ErrorKind() != tool.ErrorKindInvalidArguments ||
			!strings.HasPrefix(msg, fmt.Sprintf("Maximum of 25 tool calls allowed in batch, got %d: none of them ran", n)) {
			t.Fatalf("%d calls: %s %q", n, ret.ErrorKind(), msg)
		}
		b, err := json.Marshal(ret.Content)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 1024 {
			t.Fatalf("%d calls: the refusal is %d bytes: %s", n, len(b), b)
		}
		if len(rec.calls) != 0 {
			t.Fatalf("%d calls: %d children ran", n, len(rec.calls))
		}
	}
}

// rendezvous blocks each call until n calls have started, so a batch
// finishes only when its children run at the same time.
func rendezvous(name string, n int, started *atomic.Int32, all chan struct{}) *tool.Function {
	return tool.New(name, "meets the others", map[string]any{"type": "object"},
		func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			if started.Add(1) == int32(n) {
				close(all)
			}
			select {
			case <-all:
				return tool.Text("met"), nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		})
}

func TestBatchRunsChildrenConcurrently(t *testing.T) {
	var started atomic.Int32
	all := make(chan struct{})
	res, _ := run(t, agent.NewBuilder(batchModel(call("x", map[string]any{}), call("y", map[string]any{}), call("z", map[string]any{}))).
		Tool(rendezvous("x", 3, &started, all), rendezvous("y", 3, &started, all), rendezvous("z", 3, &started, all)))
	for _, e := range output(t, res).Results {
		if !e.Success {
			t.Fatalf("%+v", e)
		}
	}
}

// overlap counts calls running at once and keeps the largest count.
type overlap struct{ now, max atomic.Int32 }

func (o *overlap) tool(name string) *tool.Function {
	return tool.New(name, "counts", map[string]any{"type": "object"},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			n := o.now.Add(1)
			defer o.now.Add(-1)
			for {
				m := o.max.Load()
				if n <= m || o.max.CompareAndSwap(m, n) {
					break
				}
			}
			return tool.Text("ok"), nil
		})
}

func TestBatchFollowsTheSchedulingRules(t *testing.T) {
	two := func() *model.TestModel { return batchModel(call("w", map[string]any{}), call("v", map[string]any{})) }
	for _, c := range []struct {
		name string
		b    func(o *overlap) *agent.Builder
	}{
		{"repeated name", func(o *overlap) *agent.Builder {
			return agent.NewBuilder(batchModel(call("w", map[string]any{}), call("w", map[string]any{}), call("w", map[string]any{}))).Tool(o.tool("w"))
		}},
		{"sequential tool", func(o *overlap) *agent.Builder {
			return agent.NewBuilder(two()).Tool(o.tool("w").WithSequential(true), o.tool("v"))
		}},
		{"sequential agent", func(o *overlap) *agent.Builder {
			return agent.NewBuilder(two()).Tool(o.tool("w"), o.tool("v")).Sequential(true)
		}},
		{"max concurrency", func(o *overlap) *agent.Builder {
			return agent.NewBuilder(two()).Tool(o.tool("w"), o.tool("v")).MaxConcurrency(1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &overlap{}
			res, _ := run(t, c.b(o))
			if got := output(t, res); len(got.Results) < 2 || !got.Results[0].Success {
				t.Fatalf("%+v", got)
			}
			if o.max.Load() != 1 {
				t.Fatalf("%d calls overlapped", o.max.Load())
			}
		})
	}
}

func TestBatchChildrenGoThroughHooksValidationAndTimeouts(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	hook := tool.Hook{Name: "audit", Before: func(_ context.Context, tc *tool.Context, args map[string]any) error {
		mu.Lock()
		seen = append(seen, tc.ToolName+"@"+tc.ToolCallID)
		mu.Unlock()
		if tc.ToolName == "a" {
			args["v"] = "hooked"
		}
		return nil
	}}
	slow := tool.New("slow", "waits", map[string]any{"type": "object"},
		func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}).WithTimeout(time.Millisecond)
	rec := &recorder{}
	res, _ := run(t, agent.NewBuilder(batchModel(call("a", map[string]any{"v": "1"}), call("slow", map[string]any{}), call("b", map[string]any{"v": 2}))).
		Tool(rec.tool("a"), rec.tool("b"), slow).Hook(hook))
	got := output(t, res).Results
	if !got[0].Success || got[0].Result != "a:hooked" {
		t.Errorf("hooked child: %+v", got[0])
	}
	if got[1].Success || !strings.Contains(got[1].Error, "exceeded 1ms") {
		t.Errorf("slow child: %+v", got[1])
	}
	if got[2].Success || !strings.Contains(got[2].Error, "/v") {
		t.Errorf("invalid child: %+v", got[2])
	}
	slices.Sort(seen)
	if want := []string{"a@b1:00", "b@b1:02", "batch@b1", "slow@b1:01"}; !slices.Equal(seen, want) {
		t.Errorf("hooks saw %v, want %v", seen, want)
	}
}

// counter counts the runs of a tool of effect class cls.
func counter(name string, n *atomic.Int32, cls effect.Class) *tool.Function {
	return tool.New(name, "counts its runs", map[string]any{"type": "object"},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text(fmt.Sprintf("%s run %d", name, n.Add(1))), nil
		}).WithEffect(cls)
}

func TestBatchPausesForApprovalWhenRunningAgainIsSafe(t *testing.T) {
	var reads, deletes atomic.Int32
	b := agent.NewBuilder(batchModel(call("read", map[string]any{}), call("delete", map[string]any{}))).
		Tool(counter("read", &reads, effect.ClassReadOnly), counter("delete", &deletes, effect.ClassDestructive)).
		ApprovalRequiredTools("delete")
	res, s := run(t, b)
	if res.Status != agent.StatusWaiting || len(res.Pending) != 1 {
		t.Fatalf("status %s, pending %v", res.Status, res.Pending)
	}
	p := res.Pending[0]
	if p.ToolName != batch.Name || p.ToolCallID != "b1" {
		t.Fatalf("pending %+v", p)
	}
	list := p.Metadata[batch.MetaApprovals].([]any)
	if len(list) != 1 || list[0].(map[string]any)["tool_call_id"] != "b1:01" || list[0].(map[string]any)["tool"] != "delete" {
		t.Fatalf("approvals %v", list)
	}
	if !strings.Contains(p.Metadata["reason"].(string), "'delete' (index 1)") || deletes.Load() != 0 {
		t.Fatalf("reason %v, deletes %d", p.Metadata["reason"], deletes.Load())
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p.ID, Approved: true}}})
	if err != nil {
		t.Fatal(err)
	}
	got := output(t, res).Results
	if !got[0].Success || !got[1].Success || got[1].Result != "delete run 1" || deletes.Load() != 1 {
		t.Fatalf("%+v, deletes %d", got, deletes.Load())
	}
	if reads.Load() != 2 { // read-only: run again with the approved batch
		t.Fatalf("reads %d", reads.Load())
	}
}

func TestBatchDeniedAsAWhole(t *testing.T) {
	var deletes atomic.Int32
	res, s := run(t, agent.NewBuilder(batchModel(call("delete", map[string]any{}))).
		Tool(counter("delete", &deletes, effect.ClassDestructive)).ApprovalRequiredTools("delete"))
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: res.Pending[0].ID, Approved: false}}})
	if err != nil {
		t.Fatal(err)
	}
	if k := res.Returns()[0].ErrorKind(); k != tool.ErrorKindApprovalDenied || deletes.Load() != 0 {
		t.Fatalf("kind %s, deletes %d", k, deletes.Load())
	}
}

func TestBatchFailsApprovalWhenASiblingWouldRunTwice(t *testing.T) {
	var sends, deletes atomic.Int32
	res, _ := run(t, agent.NewBuilder(batchModel(call("send", map[string]any{}), call("delete", map[string]any{}))).
		Tool(counter("send", &sends, effect.ClassNonIdempotentWrite), counter("delete", &deletes, effect.ClassDestructive)).
		ApprovalRequiredTools("delete"))
	got := output(t, res).Results
	if !got[0].Success || got[1].Success || !strings.Contains(got[1].Error, "Tool 'delete' requires approval") {
		t.Fatalf("%+v", got)
	}
	if sends.Load() != 1 || deletes.Load() != 0 {
		t.Fatalf("sends %d, deletes %d", sends.Load(), deletes.Load())
	}
}

func TestBatchWithAJournalPausesAndReplaysItsSiblings(t *testing.T) {
	var sends, deletes atomic.Int32
	b := agent.NewBuilder(batchModel(call("send", map[string]any{}), call("delete", map[string]any{}))).
		Tool(counter("send", &sends, effect.ClassNonIdempotentWrite), counter("delete", &deletes, effect.ClassDestructive)).
		ApprovalRequiredTools("delete").EffectJournal(effect.NewMemoryStore())
	res, s := run(t, b)
	if res.Status != agent.StatusWaiting {
		t.Fatalf("status %s", res.Status)
	}
	first := sends.Load()
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: res.Pending[0].ID, Approved: true}}})
	if err != nil {
		t.Fatal(err)
	}
	got := output(t, res).Results
	if first != 1 || sends.Load() != 1 || deletes.Load() != 1 {
		t.Fatalf("sends %d then %d, deletes %d", first, sends.Load(), deletes.Load())
	}
	if got[0].Result != "send run 1" || got[1].Result != "delete run 1" {
		t.Fatalf("%+v", got)
	}
}

func TestBatchFailsDeferredChildren(t *testing.T) {
	rec := &recorder{}
	jobs := toolset.Deferred(toolset.New("jobs", rec.tool("render")), "render")
	res, _ := run(t, agent.NewBuilder(batchModel(call("render", map[string]any{"v": "x"}), call("a", map[string]any{"v": "y"}))).
		Tool(rec.tool("a")).Toolset(jobs))
	got := output(t, res).Results
	if got[0].Success || got[0].Error != "Tool 'render' deferred its result, which cannot be waited for inside batch; call it on its own" || !got[1].Success {
		t.Fatalf("%+v", got)
	}
}

func TestBatchReturnsTheSameBytesWhenRunAgain(t *testing.T) {
	encode := func() string {
		rec := &recorder{}
		res, _ := run(t, agent.NewBuilder(batchModel(call("a", map[string]any{"v": "1"}), call("nope", map[string]any{}), call("b", map[string]any{}))).
			Tool(rec.tool("a"), rec.tool("b")))
		b, err := json.Marshal(res.Returns()[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := encode(), encode(); a != b {
		t.Fatalf("%s\n!=\n%s", a, b)
	}
}

func TestBatchDrainSeesChildrenInIndexOrder(t *testing.T) {
	// Child 1 finishes before child 0 starts returning.
	first := make(chan struct{})
	slowTool := tool.New("late", "waits for early", map[string]any{"type": "object"},
		func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			select {
			case <-first:
				return tool.Text("late"), nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		})
	fastTool := tool.New("early", "goes first", map[string]any{"type": "object"},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			close(first)
			return tool.Text("early"), nil
		})
	var drained []string
	ts := batch.Tools(batch.Options{Drain: func(_ context.Context, tc *tool.Context, children []batch.Child) error {
		for _, c := range children {
			drained = append(drained, fmt.Sprintf("%d %s %s %v", c.Index, c.Call.ID, c.Return.Content, c.Dispatched))
		}
		return nil
	}})
	m := batchModel(call("late", map[string]any{}), call("early", map[string]any{}), call("gone", map[string]any{}))
	res, err := agent.NewBuilder(m).Tool(slowTool, fastTool).Toolset(ts).MustBuild().NewSession().Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	output(t, res)
	if len(drained) != 3 || drained[0] != "0 b1:00 late true" || drained[1] != "1 b1:01 early true" || !strings.HasPrefix(drained[2], "2 b1:02 ") {
		t.Fatalf("drained %q", drained)
	}
}
