package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// bound is how long a test waits for something that must happen; it
// bounds hangs, and no test sleeps to synchronise.
const bound = 5 * time.Second

// streamer is a test Streamer answering with scripted responses. For each
// response it reports text, then each call as start, arguments, done;
// after the done of a call it runs afterDone, which may block or fail the
// stream.
type streamer struct {
	mu        sync.Mutex
	responses []model.Message
	n         int
	afterDone func(ctx context.Context, step, index int) error
	requests  [][]model.Message
}

func (s *streamer) Request(ctx context.Context, msgs []model.Message, p model.Params) (model.Message, error) {
	return s.Stream(ctx, msgs, p, nil)
}

func (s *streamer) Stream(ctx context.Context, msgs []model.Message, _ model.Params, h model.DeltaHandler) (model.Message, error) {
	s.mu.Lock()
	if s.n >= len(s.responses) {
		s.mu.Unlock()
		return model.Message{}, errors.New("script exhausted")
	}
	step, resp := s.n, s.responses[s.n]
	s.n++
	s.requests = append(s.requests, model.CloneMessages(msgs))
	s.mu.Unlock()
	if h == nil {
		// A model asked without a handler still takes its time.
		h = func(model.Delta) {}
	}
	i := 0
	for _, p := range resp.Parts {
		switch p.Kind {
		case model.KindText:
			h(model.Delta{Kind: model.DeltaText, Text: p.Text})
		case model.KindToolCall:
			h(model.Delta{Kind: model.DeltaToolCallStart, Index: i, Call: &model.ToolCall{ID: p.ToolCall.ID, Name: p.ToolCall.Name}})
			h(model.Delta{Kind: model.DeltaToolCallArguments, Index: i, Text: string(p.ToolCall.Arguments)})
			h(model.Delta{Kind: model.DeltaToolCallDone, Index: i, Call: p.ToolCall})
			if s.afterDone != nil {
				if err := s.afterDone(ctx, step, i); err != nil {
					return model.Message{}, err
				}
			}
			i++
		}
	}
	return resp, nil
}

func (s *streamer) lastRequest() []model.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[len(s.requests)-1]
}

// signalTool returns a tool that closes started (once) when it begins,
// then waits for release (nil: returns at once) or its context.
func signalTool(name string, started chan struct{}, release <-chan struct{}) *tool.Function {
	var once sync.Once
	return tool.New(name, "", map[string]any{"type": "object"}, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if started != nil {
			once.Do(func() { close(started) })
		}
		if release != nil {
			select {
			case <-release:
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}
		return tool.Text(name + " done"), nil
	})
}

// waitFor blocks until ch is closed or the bound passes.
func waitFor(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(bound):
		return errors.New("timed out")
	}
}

func twoCalls(a, b string) model.Message {
	return calls(model.Call("c0", a, map[string]any{}), model.Call("c1", b, map[string]any{}))
}

// The stream blocks after reporting call 0 until call 0's tool started:
// the tool starts while the response still streams.
func TestEagerDispatchStartsCallBeforeResponseEnds(t *testing.T) {
	started := make(chan struct{})
	m := &streamer{responses: []model.Message{twoCalls("first", "second"), text("done")}}
	m.afterDone = func(ctx context.Context, step, i int) error {
		if step == 0 && i == 0 {
			return waitFor(ctx, started)
		}
		return nil
	}
	a := agent.NewBuilder(m).Tool(signalTool("first", started, nil), signalTool("second", nil, nil)).MustBuild()
	res, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatalf("run: %v (the first tool did not start while the response streamed)", err)
	}
	if res.Output != "done" {
		t.Fatalf("output %q", res.Output)
	}
}

// With eager dispatch off, the same stream would wait for a tool that
// only starts after the response: it times out instead of completing.
func TestEagerDispatchOptOut(t *testing.T) {
	started := make(chan struct{})
	m := &streamer{responses: []model.Message{twoCalls("first", "second"), text("done")}}
	var sawStarted bool
	m.afterDone = func(ctx context.Context, step, i int) error {
		if step == 0 && i == 0 {
			select {
			case <-started:
				sawStarted = true
			default:
			}
		}
		return nil
	}
	a := agent.NewBuilder(m).Tool(signalTool("first", started, nil), signalTool("second", nil, nil)).EagerDispatch(false).MustBuild()
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if sawStarted {
		t.Fatal("a call started before its response ended although eager dispatch is off")
	}
	select {
	case <-started:
	default:
		t.Fatal("the call never ran")
	}
}

// A sequential tool waits for the response, and so do the calls after
// it; the calls before it start early.
func TestEagerDispatchSkipsSequentialTool(t *testing.T) {
	cases := map[string]func(started chan struct{}) tool.Tool{
		"sequential": func(started chan struct{}) tool.Tool { return signalTool("first", started, nil).WithSequential(true) },
		"approval": func(started chan struct{}) tool.Tool {
			return signalTool("first", started, nil).WithMetadata(map[string]any{tool.MetaApprovalRequired: true})
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			started := make(chan struct{})
			m := &streamer{responses: []model.Message{twoCalls("first", "second"), text("done")}}
			early := false
			m.afterDone = func(_ context.Context, step, i int) error {
				if step == 0 {
					select {
					case <-started:
						early = true
					default:
					}
				}
				return nil
			}
			a := agent.NewBuilder(m).Tool(mk(started), signalTool("second", nil, nil)).MustBuild()
			if _, err := a.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if early {
				t.Fatal("the tool started before the response ended")
			}
		})
	}
}

// A repeated name is not started early: the first call of the name is,
// and the second runs after the response, after the first finished.
func TestEagerDispatchRepeatedName(t *testing.T) {
	var mu sync.Mutex
	var running, maxRunning int
	var order []string
	slow := tool.New("slow", "", map[string]any{"type": "object"}, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		running++
		maxRunning = max(maxRunning, running)
		order = append(order, tc.ToolCallID)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		return tool.Text("ok"), nil
	})
	m := &streamer{responses: []model.Message{twoCalls("slow", "slow"), text("done")}}
	a := agent.NewBuilder(m).Tool(slow).MustBuild()
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if maxRunning != 1 || strings.Join(order, ",") != "c0,c1" {
		t.Fatalf("max running %d, order %v", maxRunning, order)
	}
}

// Returns reach history and events in model order even when the early
// call finishes last.
func TestEagerDispatchModelOrder(t *testing.T) {
	release := make(chan struct{})
	second := tool.New("second", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		close(release) // the first call finishes only after this one
		return tool.Text("second done"), nil
	})
	m := &streamer{responses: []model.Message{twoCalls("first", "second"), text("done")}}
	var returns []string
	a := agent.NewBuilder(m).Tool(signalTool("first", nil, release), second).MustBuild()
	res, err := a.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventToolReturn {
			returns = append(returns, ev.Return.ToolCallID)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(returns, ",") != "c0,c1" {
		t.Fatalf("events %v", returns)
	}
	var hist []string
	for _, msg := range res.Messages {
		for _, p := range msg.Parts {
			if p.Kind == model.KindToolReturn {
				hist = append(hist, p.Return.ToolCallID+"="+p.Return.Content.(string))
			}
		}
	}
	if strings.Join(hist, ",") != "c0=first done,c1=second done" {
		t.Fatalf("history %v", hist)
	}
}

// A stream that fails after a call started cancels the call, and its
// return reaches neither history nor events.
func TestEagerDispatchFailedStreamCancelsCalls(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan struct{})
	blocking := tool.New("first", "", map[string]any{"type": "object"}, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return tool.Result{}, ctx.Err()
	})
	m := &streamer{responses: []model.Message{twoCalls("first", "second")}}
	m.afterDone = func(ctx context.Context, _, i int) error {
		if err := waitFor(ctx, started); err != nil {
			return err
		}
		return errors.New("connection reset")
	}
	var kinds []string
	a := agent.NewBuilder(m).Tool(blocking, signalTool("second", nil, nil)).MustBuild()
	res, err := a.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) { kinds = append(kinds, ev.Kind) }))
	if !errors.Is(err, agent.ErrModel) || res.Status != agent.StatusFailed {
		t.Fatalf("err %v", err)
	}
	// The engine does not wait for a cancelled tool's goroutine (a tool may
	// ignore cancellation), so the tool's own exit is awaited, bounded.
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the early call was never cancelled")
	}
	for _, k := range kinds {
		if k == agent.EventToolReturn || k == agent.EventToolCall {
			t.Fatalf("events %v", kinds)
		}
	}
	for _, msg := range res.Messages {
		if msg.Kind == model.KindResponse {
			t.Fatalf("history kept the failed response: %v", res.Messages)
		}
	}
}

// WithDeltas turns the stream into events, with sequence, run id and step;
// without it there are none.
func TestDeltaEvents(t *testing.T) {
	resp := model.Response(model.TextPart("let me add"), model.ToolCallPart("c0", "add", json.RawMessage(`{"left":1,"right":2}`)))
	run := func(opts ...agent.RunOption) []agent.Event {
		m := &streamer{responses: []model.Message{resp, text("3")}}
		var evs []agent.Event
		opts = append(opts, agent.WithEvents(func(ev agent.Event) { evs = append(evs, ev) }))
		if _, err := agent.NewBuilder(m).Tool(addTool()).MustBuild().Run(context.Background(), "go", opts...); err != nil {
			t.Fatal(err)
		}
		return evs
	}
	var kinds []string
	for i, ev := range run(agent.WithDeltas()) {
		if ev.Sequence != i+1 || ev.RunID == "" {
			t.Fatalf("event %d: %+v", i, ev)
		}
		k := ev.Kind
		if ev.Delta != nil {
			k += ":" + ev.Delta.Kind
		}
		kinds = append(kinds, k)
	}
	want := "run_start model_request text_delta:text tool_call_delta:tool_call_start tool_call_delta:tool_call_arguments " +
		"tool_call_delta:tool_call_done model_response usage tool_call tool_return " +
		"model_request text_delta:text model_response usage run_complete"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	for _, ev := range run() {
		if ev.Delta != nil || ev.Kind == agent.EventUsage {
			t.Fatalf("live event without WithDeltas: %+v", ev)
		}
	}
	b, _ := json.Marshal(agent.Event{Kind: agent.EventTextDelta, Sequence: 3, RunID: "run_1", Step: 0, Delta: &model.Delta{Kind: model.DeltaText, Text: "hi"}})
	if string(b) != `{"kind":"text_delta","sequence":3,"run_id":"run_1","step":0,"delta":{"kind":"text","text":"hi"}}` {
		t.Fatalf("json %s", b)
	}
}

// A model that does not stream reports its whole response as deltas.
func TestDeltaEventsFromPlainModel(t *testing.T) {
	var deltas []string
	m := model.NewTestModel(model.Response(model.TextPart("hello")))
	_, err := agent.NewBuilder(m).MustBuild().Run(context.Background(), "go", agent.WithDeltas(),
		agent.WithEvents(func(ev agent.Event) {
			if ev.Delta != nil {
				deltas = append(deltas, ev.Kind+":"+ev.Delta.Text)
			}
		}))
	if err != nil || strings.Join(deltas, ",") != "text_delta:hello" {
		t.Fatalf("%v %v", deltas, err)
	}
}

// A return that spends a correction is followed by a retry event.
func TestRetryEvent(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c0", "add", map[string]any{"left": "x"})), text("ok"))
	var retries []*tool.Return
	_, err := agent.NewBuilder(m).Tool(addTool()).MustBuild().Run(context.Background(), "go", agent.WithDeltas(),
		agent.WithEvents(func(ev agent.Event) {
			if ev.Kind == agent.EventRetry {
				retries = append(retries, ev.Return)
			}
		}))
	if err != nil || len(retries) != 1 || retries[0].Runtime == nil || retries[0].Runtime.Retry != 1 {
		t.Fatalf("retries %v, err %v", retries, err)
	}
}

// A run that ends waiting emits suspended, then run_waiting.
func TestSuspendedEvent(t *testing.T) {
	gated := tool.New("gated", "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.ApprovalRequired("check", nil)
	})
	m := model.NewTestModel(calls(model.Call("c0", "gated", map[string]any{})))
	var kinds []string
	res, err := agent.NewBuilder(m).Tool(gated).MustBuild().Run(context.Background(), "go", agent.WithDeltas(),
		agent.WithEvents(func(ev agent.Event) { kinds = append(kinds, ev.Kind) }))
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatal(err)
	}
	if n := len(kinds); n < 2 || kinds[n-2] != agent.EventSuspended || kinds[n-1] != agent.EventRunWaiting {
		t.Fatalf("events %v", kinds)
	}
}

// BenchmarkEagerDispatch runs a response whose stream goes on for 20ms
// after its first call is complete, and a tool that takes 20ms: eager
// dispatch overlaps the two, so a run takes about the tool's time less.
func BenchmarkEagerDispatch(b *testing.B) {
	const tail, work = 20 * time.Millisecond, 20 * time.Millisecond
	slow := tool.New("slow", "", map[string]any{"type": "object"}, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
		select {
		case <-time.After(work):
		case <-ctx.Done():
		}
		return tool.Text("ok"), nil
	})
	for _, eager := range []bool{true, false} {
		name := "eager"
		if !eager {
			name = "opted_out"
		}
		b.Run(name, func(b *testing.B) {
			m := &streamer{}
			m.afterDone = func(ctx context.Context, _, _ int) error {
				select {
				case <-time.After(tail): // the rest of the response streaming
				case <-ctx.Done():
				}
				return nil
			}
			a := agent.NewBuilder(m).Tool(slow).EagerDispatch(eager).MustBuild()
			start := time.Now()
			for b.Loop() {
				m.mu.Lock()
				m.responses, m.n = []model.Message{calls(model.Call("c0", "slow", map[string]any{})), text("done")}, 0
				m.requests = nil
				m.mu.Unlock()
				if _, err := a.Run(context.Background(), "go"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/run")
		})
	}
}

// A capped tool's calls are left to the batch, which grants their slots
// in model order: eager dispatch would start each on its own goroutine,
// racing for the slots. The stream gives a started call half a second to
// show itself before the response ends; none may.
func TestEagerDispatchLeavesCappedCallsToTheBatch(t *testing.T) {
	started := make(chan struct{})
	m := &streamer{responses: []model.Message{twoCalls("capped", "capped"), text("done")}}
	var early bool
	m.afterDone = func(ctx context.Context, step, i int) error {
		if step == 0 && i == 1 {
			early = waitFor(ctx, started) == nil
		}
		return nil
	}
	capped := signalTool("capped", started, nil).WithEffect(effect.ClassReadOnly).WithMaxConcurrency(1)
	a := agent.NewBuilder(m).Tool(capped).MustBuild()
	res, err := a.Run(context.Background(), "go")
	if err != nil || res.Output != "done" {
		t.Fatalf("run %+v, %v", res, err)
	}
	if early {
		t.Fatal("a capped call started while its response streamed")
	}
}

// heldStarter is a Starter whose calls are held until release answers them.
type heldStarter struct {
	name string
	held *[]func(tool.Result, error)
	mu   *sync.Mutex
}

func (h heldStarter) Definition() tool.Definition {
	return tool.Definition{Name: h.name, Parameters: map[string]any{"type": "object"}}
}

func (h heldStarter) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, tool.UserError("the blocking path was used")
}

func (h heldStarter) Start(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
	h.mu.Lock()
	*h.held = append(*h.held, done)
	h.mu.Unlock()
}

// Calls started while the response streams take the started-call path a
// parallel batch takes: a host tool's call holds no goroutine of its own
// (with a goroutine per call, 200 held calls would hold 200 goroutines).
func TestEagerDispatchStartsHostCallsWithoutAGoroutineEach(t *testing.T) {
	const n = 200
	var (
		mu   sync.Mutex
		held []func(tool.Result, error)
	)
	var tools []tool.Tool
	var cs []model.ToolCall
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("host%d", i)
		tools = append(tools, heldStarter{name: name, held: &held, mu: &mu})
		cs = append(cs, model.Call(fmt.Sprintf("c%d", i), name, map[string]any{}))
	}
	before := runtime.NumGoroutine()
	var during int
	m := &streamer{responses: []model.Message{calls(cs...), text("done")}}
	m.afterDone = func(_ context.Context, step, i int) error {
		if step != 0 || i != n-1 {
			return nil
		}
		mu.Lock()
		started := len(held)
		answer := held
		mu.Unlock()
		if started != n {
			return fmt.Errorf("%d of %d calls started while the response streamed", started, n)
		}
		during = runtime.NumGoroutine()
		for j, done := range answer {
			done(tool.Result{Content: j}, nil)
		}
		return nil
	}
	a := agent.NewBuilder(m).Tool(tools...).MustBuild()
	res, err := a.Run(context.Background(), "go")
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %v, %+v", err, res)
	}
	if extra := during - before; extra > n/4 {
		t.Fatalf("%d goroutines more while %d host calls were held", extra, n)
	}
}
