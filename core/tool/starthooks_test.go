package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// bound is how long a test waits for something that must happen; it
// bounds hangs, and no test sleeps to synchronise.
const bound = 10 * time.Second

// answerer runs answers on one goroutine, as the bridge's reader delivers
// a host's answers to hooks and calls.
type answerer chan func()

func newAnswerer(t testing.TB) answerer {
	a := make(answerer, 4096)
	go func() {
		for f := range a {
			f()
		}
	}()
	t.Cleanup(func() { close(a) })
	return a
}

// callLog records what ran, per call id.
type callLog struct {
	mu sync.Mutex
	m  map[string][]string
}

func (l *callLog) add(id, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string][]string{}
	}
	l.m[id] = append(l.m[id], what)
}

func (l *callLog) of(id string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.m[id])
}

// asyncHook is a hook in its Start forms, answered by a.
func asyncHook(name string, a answerer, log *callLog) tool.Hook {
	return tool.Hook{
		Name: name,
		StartBefore: func(_ context.Context, tc *tool.Context, _ map[string]any, done func(error)) {
			id := tc.ToolCallID
			a <- func() { log.add(id, "before:"+name); done(nil) }
		},
		StartAfter: func(_ context.Context, tc *tool.Context, _ *tool.Outcome, done func(error)) {
			id := tc.ToolCallID
			a <- func() { log.add(id, "after:"+name); done(nil) }
		},
	}
}

// syncHook is a hook in its blocking forms.
func syncHook(name string, log *callLog) tool.Hook {
	return tool.Hook{
		Name: name,
		Before: func(_ context.Context, tc *tool.Context, _ map[string]any) error {
			log.add(tc.ToolCallID, "before:"+name)
			return nil
		},
		After: func(_ context.Context, tc *tool.Context, _ *tool.Outcome) error {
			log.add(tc.ToolCallID, "after:"+name)
			return nil
		},
	}
}

// hookedStarter is a Starter with a Config (hooks, validators).
type hookedStarter struct {
	name  string
	cfg   tool.Config
	start func(ctx context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error))
}

func (h *hookedStarter) Definition() tool.Definition {
	return tool.Definition{Name: h.name, Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}},
	}}
}

func (h *hookedStarter) ToolConfig() *tool.Config { return &h.cfg }

func (h *hookedStarter) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, tool.UserError("the blocking path was used")
}

func (h *hookedStarter) Start(ctx context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
	h.start(ctx, tc, args, done)
}

// blockingOf is the same tool without its Start: a cooperative Call that
// starts it and waits, as hooked calls of a Starter ran before they were
// started, each on a goroutine of its own.
type blockingOf struct{ s *hookedStarter }

func (b blockingOf) Definition() tool.Definition { return b.s.Definition() }
func (b blockingOf) ToolConfig() *tool.Config    { return &b.s.cfg }
func (b blockingOf) Cooperative() bool           { return true }

func (b blockingOf) Call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	type outcome struct {
		res tool.Result
		err error
	}
	ch := make(chan outcome, 1)
	var once sync.Once
	b.s.start(ctx, tc, args, func(res tool.Result, err error) { once.Do(func() { ch <- outcome{res, err} }) })
	o := <-ch // Start calls done promptly once ctx ends
	return o.res, o.err
}

// A parallel batch of hooked calls of a Starter holds no goroutine per
// call while the tools run: with a goroutine per call, 200 held calls
// would hold 200 goroutines. Hooks answered elsewhere run in their order
// around every call.
func TestHookedBatchHoldsNoGoroutinePerCall(t *testing.T) {
	const n = 200
	a := newAnswerer(t)
	log := &callLog{}
	var (
		mu   sync.Mutex
		held []func()
		all  = make(chan struct{})
	)
	var tools []tool.Tool
	var names []string
	for i := range n {
		name := fmt.Sprintf("h%d", i)
		names = append(names, name)
		tools = append(tools, &hookedStarter{name: name, cfg: tool.Config{Hooks: []tool.Hook{asyncHook("t", a, log)}},
			start: func(_ context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
				log.add(tc.ToolCallID, "tool")
				mu.Lock()
				defer mu.Unlock()
				held = append(held, func() { done(tool.JSON(args), nil) })
				if len(held) == n {
					close(all)
				}
			}})
	}
	r := mustRegistry(t, tools...)
	r.AddHook(asyncHook("g1", a, log))
	r.AddHook(asyncHook("g2", a, log))
	before := runtime.NumGoroutine()
	var rets []tool.Return
	finished := make(chan struct{})
	go func() {
		rets = r.ExecuteBatch(context.Background(), nil, batchOf(names...), tool.BatchOptions{})
		close(finished)
	}()
	select {
	case <-all:
	case <-time.After(bound):
		t.Fatal("the batch's calls did not all start")
	}
	during := runtime.NumGoroutine()
	mu.Lock()
	for _, f := range held {
		a <- f
	}
	mu.Unlock()
	select {
	case <-finished:
	case <-time.After(bound):
		t.Fatal("the batch did not end")
	}
	if extra := during - before; extra > n/4 {
		t.Fatalf("%d goroutines more while %d hooked calls were held", extra, n)
	}
	want := []string{"before:g1", "before:g2", "before:t", "tool", "after:t", "after:g1", "after:g2"}
	for i, ret := range rets {
		id := fmt.Sprintf("c%d", i)
		if ret.IsError || ret.ToolCallID != id || string(ret.Content.(json.RawMessage)) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("return %d: %+v", i, ret)
		}
		if got := log.of(id); !slices.Equal(got, want) {
			t.Fatalf("call %d ran %v, want %v", i, got, want)
		}
	}
}

// hookCase is one hooked call, run once started and once on a goroutine
// of its own; build makes fresh state for each run.
type hookCase struct {
	name  string
	build func(env *caseEnv) caseSpec
}

// caseEnv is what a case's hooks and tool may use.
type caseEnv struct {
	a      answerer
	log    *callLog
	cancel context.CancelFunc
}

type caseSpec struct {
	start      func(ctx context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error))
	global     []tool.Hook
	own        []tool.Hook
	validators []tool.ArgumentValidator
	args       string
	timeout    time.Duration
}

// answered is a tool answering with res and err from the answerer.
func answered(env *caseEnv, res tool.Result, err error) func(context.Context, *tool.Context, json.RawMessage, func(tool.Result, error)) {
	return func(_ context.Context, tc *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		id := tc.ToolCallID
		env.a <- func() { env.log.add(id, "tool"); done(res, err) }
	}
}

// awaitingEnd is a tool, or a hook, that answers once ctx ends.
func awaitingEnd(ctx context.Context, done func()) {
	go func() {
		<-ctx.Done()
		done()
	}()
}

var hookCases = []hookCase{
	{"order", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			global: []tool.Hook{asyncHook("g1", env.a, env.log), syncHook("g2", env.log)},
			own:    []tool.Hook{syncHook("t1", env.log), asyncHook("t2", env.a, env.log)}}
	}},
	{"after changes the outcome", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("raw"), nil),
			own: []tool.Hook{{StartAfter: func(_ context.Context, _ *tool.Context, out *tool.Outcome, done func(error)) {
				env.a <- func() {
					out.Result.Content = out.Result.Content.(string) + "+audited"
					out.Result.Metadata = map[string]any{"audited": true}
					done(nil)
				}
			}}}}
	}},
	{"after error replaces the outcome", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("raw"), nil),
			own: []tool.Hook{{After: func(context.Context, *tool.Context, *tool.Outcome) error {
				return tool.ModelRetry("too large")
			}}},
			global: []tool.Hook{{StartAfter: func(_ context.Context, tc *tool.Context, out *tool.Outcome, done func(error)) {
				env.log.add(tc.ToolCallID, "saw:"+string(tool.KindOf(out.Err)))
				go done(nil)
			}}}}
	}},
	{"after rescues an error", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Result{}, tool.Feedback("not found")),
			global: []tool.Hook{{StartAfter: func(_ context.Context, _ *tool.Context, out *tool.Outcome, done func(error)) {
				out.Result, out.Err = tool.Text("recovered"), nil
				done(nil) // at once, on the goroutine that delivered the outcome
			}}}}
	}},
	{"before refuses", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			global: []tool.Hook{{StartBefore: func(_ context.Context, _ *tool.Context, _ map[string]any, done func(error)) {
				env.a <- func() { done(tool.UserError("blocked by policy")) }
			}}},
			own: []tool.Hook{syncHook("t", env.log)}}
	}},
	{"before asks for approval", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil), args: `null`,
			global: []tool.Hook{{StartBefore: func(_ context.Context, _ *tool.Context, _ map[string]any, done func(error)) {
				go done(tool.ApprovalRequired("review", map[string]any{"risk": "high"}))
			}}}}
	}},
	{"before rewrites arguments", func(env *caseEnv) caseSpec {
		return caseSpec{args: `{"n":1}`,
			start: func(_ context.Context, _ *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
				go done(tool.JSON(args), nil)
			},
			global: []tool.Hook{{StartBefore: func(_ context.Context, tc *tool.Context, args map[string]any, done func(error)) {
				env.a <- func() { args["n"] = 5; tc.Metadata = map[string]any{"traced": true}; done(nil) }
			}}}}
	}},
	{"rewritten arguments are validated", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			global: []tool.Hook{{StartBefore: func(_ context.Context, _ *tool.Context, args map[string]any, done func(error)) {
				env.a <- func() { args["n"] = "five"; done(nil) }
			}}}}
	}},
	{"validator refuses", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			own: []tool.Hook{asyncHook("t", env.a, env.log)},
			validators: []tool.ArgumentValidator{func(tc *tool.Context, _ map[string]any) error {
				env.log.add(tc.ToolCallID, "validator")
				return errors.New("n must be even")
			}}}
	}},
	{"sync before panics", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			global: []tool.Hook{asyncHook("g", env.a, env.log), {Before: func(context.Context, *tool.Context, map[string]any) error { panic("boom") }}}}
	}},
	{"start before panics", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			global: []tool.Hook{{StartBefore: func(context.Context, *tool.Context, map[string]any, func(error)) { panic("boom") }}}}
	}},
	{"sync after panics", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Result{}, errors.New("flaky")),
			own:    []tool.Hook{{After: func(context.Context, *tool.Context, *tool.Outcome) error { panic("boom") }}},
			global: []tool.Hook{asyncHook("g", env.a, env.log)}}
	}},
	{"start after panics", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Result{}, errors.New("flaky")),
			own: []tool.Hook{{StartAfter: func(context.Context, *tool.Context, *tool.Outcome, func(error)) { panic("boom") }}}}
	}},
	{"retries", func(env *caseEnv) caseSpec {
		attempts := 0
		return caseSpec{
			start: func(_ context.Context, tc *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
				attempts++
				if attempts < 3 {
					done(tool.Result{}, errors.New("transient")) // at once: the next attempt starts inside
					return
				}
				go done(tool.Text("ok"), nil)
			},
			global: []tool.Hook{{StartAfter: func(_ context.Context, tc *tool.Context, out *tool.Outcome, done func(error)) {
				id, what := tc.ToolCallID, fmt.Sprintf("after:%d:%s", tc.Retry, tool.KindOf(out.Err))
				env.a <- func() { env.log.add(id, what); done(nil) }
			}}, syncHook("s", env.log)}}
	}},
	{"retries run out", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Result{}, errors.New("always")),
			own: []tool.Hook{asyncHook("t", env.a, env.log)}}
	}},
	{"after rescues a failed attempt", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Result{}, errors.New("always")),
			own: []tool.Hook{{StartAfter: func(_ context.Context, tc *tool.Context, out *tool.Outcome, done func(error)) {
				env.a <- func() {
					if tc.Retry == 1 {
						out.Result, out.Err = tool.Text("rescued"), nil
					}
					done(nil)
				}
			}}}}
	}},
	{"control flow is only observed", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Result{}, tool.CallDeferred("worker", map[string]any{"queue": "q"})),
			own: []tool.Hook{{StartAfter: func(_ context.Context, _ *tool.Context, out *tool.Outcome, done func(error)) {
				out.Result, out.Err = tool.Text("hijacked"), nil
				env.a <- func() { done(errors.New("ignored")) }
			}}},
			global: []tool.Hook{{After: func(_ context.Context, tc *tool.Context, out *tool.Outcome) error {
				env.log.add(tc.ToolCallID, "saw:"+string(tool.KindOf(out.Err)))
				return nil
			}}}}
	}},
	{"timeout", func(env *caseEnv) caseSpec {
		return caseSpec{timeout: 20 * time.Millisecond,
			start: func(ctx context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
				awaitingEnd(ctx, func() { done(tool.Result{}, ctx.Err()) })
			},
			own: []tool.Hook{{StartAfter: func(_ context.Context, tc *tool.Context, out *tool.Outcome, done func(error)) {
				id, what := tc.ToolCallID, "saw:"+string(tool.KindOf(out.Err))
				env.a <- func() { env.log.add(id, what); done(nil) }
			}}}}
	}},
	{"cancelled while a before-hook waits", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			global: []tool.Hook{{StartBefore: func(ctx context.Context, _ *tool.Context, _ map[string]any, done func(error)) {
				awaitingEnd(ctx, func() { done(ctx.Err()) })
				env.cancel()
			}}}}
	}},
	{"cancelled while an after-hook waits", func(env *caseEnv) caseSpec {
		return caseSpec{start: answered(env, tool.Text("ok"), nil),
			own: []tool.Hook{{StartAfter: func(ctx context.Context, _ *tool.Context, _ *tool.Outcome, done func(error)) {
				awaitingEnd(ctx, func() { done(tool.Cancelled("the run ended")) })
				env.cancel()
			}}},
			global: []tool.Hook{syncHook("g", env.log)}}
	}},
}

// runHookCase runs the case's call with its tool started or not, and
// returns the call's Return (without its panic stack) and log.
func runHookCase(t *testing.T, hc hookCase, started bool) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := &caseEnv{a: newAnswerer(t), log: &callLog{}, cancel: cancel}
	spec := hc.build(env)
	s := &hookedStarter{name: "t", start: spec.start, cfg: tool.Config{Hooks: spec.own, Validators: spec.validators}}
	var tl tool.Tool = s
	if !started {
		tl = blockingOf{s}
	}
	r := mustRegistry(t, tl)
	r.SetMaxRetries(2)
	if spec.timeout > 0 {
		r.SetTimeout(spec.timeout)
	}
	for _, h := range spec.global {
		r.AddHook(h)
	}
	args := spec.args
	if args == "" {
		args = `{"n":1}`
	}
	// A batch of two calls runs in parallel, through StartCall; the
	// second call is of a tool without hooks.
	other := tool.New("other", "", nil, okHandler)
	if err := r.Add(other); err != nil {
		t.Fatal(err)
	}
	done := make(chan []tool.Return, 1)
	go func() {
		done <- r.ExecuteBatch(ctx, nil, []tool.Call{call("c", "t", args), call("o", "other", `{}`)}, tool.BatchOptions{})
	}()
	var ret tool.Return
	select {
	case rets := <-done:
		ret = rets[0]
	case <-time.After(bound):
		t.Fatal("the call did not end")
	}
	if ret.PrivateMetadata != nil {
		delete(ret.PrivateMetadata, "stack")
	}
	b, err := json.Marshal(struct {
		Ret     tool.Return
		Private map[string]any
	}{ret, ret.PrivateMetadata})
	if err != nil {
		t.Fatal(err)
	}
	return string(b), env.log.of("c")
}

// Hooks of a started call behave as on a call's own goroutine: order,
// changed and replaced outcomes, refusals, panics, retries, control flow,
// timeouts and cancellation while a hook waits.
func TestStartedHooksMatchTheBlockingPath(t *testing.T) {
	for _, hc := range hookCases {
		t.Run(hc.name, func(t *testing.T) {
			got, gotLog := runHookCase(t, hc, true)
			want, wantLog := runHookCase(t, hc, false)
			if got != want {
				t.Fatalf("started:\n%s\non its own goroutine:\n%s", got, want)
			}
			if !slices.Equal(gotLog, wantLog) {
				t.Fatalf("started ran %v, on its own goroutine %v", gotLog, wantLog)
			}
		})
	}
}

// Under a batch's cap, a hooked call of a Starter runs its before-hooks
// holding its slot, as a call on a goroutine of its own does: no more
// calls than the cap are between their first hook and their end.
func TestCappedHookedCallsHookHoldingTheirSlot(t *testing.T) {
	const n, limit = 12, 2
	a := newAnswerer(t)
	var mu sync.Mutex
	inFlight, most := 0, 0
	var tools []tool.Tool
	var names []string
	for i := range n {
		name := fmt.Sprintf("h%d", i)
		names = append(names, name)
		tools = append(tools, &hookedStarter{name: name, start: func(_ context.Context, _ *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
			a <- func() {
				mu.Lock()
				inFlight--
				mu.Unlock()
				done(tool.JSON(args), nil)
			}
		}})
	}
	r := mustRegistry(t, tools...)
	r.AddHook(tool.Hook{StartBefore: func(_ context.Context, _ *tool.Context, _ map[string]any, done func(error)) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		a <- func() { done(nil) }
	}})
	rets := r.ExecuteBatch(context.Background(), nil, batchOf(names...), tool.BatchOptions{MaxConcurrency: limit})
	for i, ret := range rets {
		if ret.IsError || string(ret.Content.(json.RawMessage)) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("return %d: %+v", i, ret)
		}
	}
	if most > limit {
		t.Fatalf("%d calls ran hooks or tools at once under a cap of %d", most, limit)
	}
}
