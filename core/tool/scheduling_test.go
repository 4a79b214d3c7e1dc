package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

// gated is a set of tools whose calls report when they start and run
// until the test releases them by call id: the test decides every
// interleaving, and nothing waits on time.
type gated struct {
	mu       sync.Mutex
	running  map[string]bool
	started  []string
	release  map[string]chan struct{}
	events   chan string
	inFlight map[string]int // per tool name
	peak     map[string]int
}

func newGated(ids ...string) *gated {
	g := &gated{running: map[string]bool{}, release: map[string]chan struct{}{}, events: make(chan string, 64),
		inFlight: map[string]int{}, peak: map[string]int{}}
	for _, id := range ids {
		g.release[id] = make(chan struct{})
	}
	return g
}

func (g *gated) handler(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
	g.mu.Lock()
	g.running[tc.ToolCallID] = true
	g.started = append(g.started, tc.ToolCallID)
	g.inFlight[tc.ToolName]++
	g.peak[tc.ToolName] = max(g.peak[tc.ToolName], g.inFlight[tc.ToolName])
	rel := g.release[tc.ToolCallID]
	g.mu.Unlock()
	g.events <- tc.ToolCallID
	select {
	case <-rel:
	case <-ctx.Done():
		return tool.Result{}, ctx.Err()
	}
	g.mu.Lock()
	g.running[tc.ToolCallID] = false
	g.inFlight[tc.ToolName]--
	g.mu.Unlock()
	return tool.Text(tc.ToolCallID), nil
}

// wait receives the next start events and fails unless they are want, in
// any order.
func (g *gated) wait(t *testing.T, ctx context.Context, want ...string) {
	t.Helper()
	var got []string
	for range want {
		select {
		case id := <-g.events:
			got = append(got, id)
		case <-ctx.Done():
			t.Fatalf("waiting for %v: started %v", want, got)
		}
	}
	slices.Sort(got)
	w := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, w) {
		t.Fatalf("started %v, want %v", got, w)
	}
}

// hasStarted reports whether the call with id started.
func (g *gated) hasStarted(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Contains(g.started, id)
}

func (g *gated) open(id string) { close(g.release[id]) }

// keyed returns a tool ordered by its "path" argument with access.
func (g *gated) keyed(name string, access tool.Access) *tool.Function {
	return tool.New(name, "", map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
		g.handler).WithResourceArgument("path", access)
}

func runBatch(r *tool.Registry, ctx context.Context, calls []tool.Call, opts tool.BatchOptions) <-chan []tool.Return {
	out := make(chan []tool.Return, 1)
	go func() { out <- r.ExecuteBatch(ctx, nil, calls, opts) }()
	return out
}

func TestResourceKeysOrderAWriteBetweenReads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	g := newGated("r1", "w", "r2", "b1", "bw")
	r := mustRegistry(t, g.keyed("read", tool.AccessRead), g.keyed("write", tool.AccessWrite))
	calls := []tool.Call{
		call("r1", "read", `{"path":"a"}`),
		call("w", "write", `{"path":"a"}`),
		call("r2", "read", `{"path":"a"}`),
		call("b1", "read", `{"path":"b"}`),
		call("bw", "write", `{"path":"b"}`),
	}
	if why := r.SequentialReason(calls, false); why != "" {
		t.Fatalf("keyed batch is sequential: %s", why)
	}
	done := runBatch(r, ctx, calls, tool.BatchOptions{})
	// The first read of each key starts at once: "b" overlaps "a".
	g.wait(t, ctx, "r1", "b1")
	// The write on "b" waits for the read on "b" only.
	g.open("b1")
	g.wait(t, ctx, "bw")
	if g.hasStarted("w") || g.hasStarted("r2") {
		t.Fatalf("a call on %q started while the first read ran: %v", "a", g.started)
	}
	g.open("bw")
	// The write on "a" waits for the first read; the second read for it.
	g.open("r1")
	g.wait(t, ctx, "w")
	if g.hasStarted("r2") {
		t.Fatal("the second read started while the write ran")
	}
	g.open("w")
	g.wait(t, ctx, "r2")
	g.open("r2")
	rets := <-done
	for i, ret := range rets {
		wantSuccess(t, ret)
		if ret.ToolCallID != calls[i].ID {
			t.Fatalf("return %d is %s: not in model order", i, ret.ToolCallID)
		}
	}
}

func TestResourceKeysLetReadsOfOneKeyRunTogether(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	g := newGated("r1", "r2", "r3", "w")
	r := mustRegistry(t, g.keyed("read", tool.AccessRead), g.keyed("write", tool.AccessWrite))
	calls := []tool.Call{call("w", "write", `{"path":"a"}`), call("r1", "read", `{"path":"a"}`),
		call("r2", "read", `{"path":"a"}`), call("r3", "read", `{"path":"a"}`)}
	done := runBatch(r, ctx, calls, tool.BatchOptions{})
	g.wait(t, ctx, "w")
	g.open("w")
	// Every read starts before any ends: they run together.
	g.wait(t, ctx, "r1", "r2", "r3")
	g.open("r1")
	g.open("r2")
	g.open("r3")
	for _, ret := range <-done {
		wantSuccess(t, ret)
	}
}

func TestResourceKeyOfOneToolRepeatsInParallel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	g := newGated("x", "y", "x2")
	r := mustRegistry(t, g.keyed("write", tool.AccessWrite))
	calls := []tool.Call{call("x", "write", `{"path":"x"}`), call("y", "write", `{"path":"y"}`), call("x2", "write", `{"path":"x"}`)}
	done := runBatch(r, ctx, calls, tool.BatchOptions{})
	// Writes on different keys of one tool overlap; the repeat on "x" waits.
	g.wait(t, ctx, "x", "y")
	g.open("y")
	g.open("x")
	g.wait(t, ctx, "x2")
	g.open("x2")
	for _, ret := range <-done {
		wantSuccess(t, ret)
	}
}

func TestUnreadableResourceKeyOrdersAsABarrier(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	g := newGated("a", "odd", "b")
	key := func(args json.RawMessage) (string, bool) {
		var v struct{ Path *string }
		if json.Unmarshal(args, &v) != nil || v.Path == nil {
			return "", false
		}
		return *v.Path, true
	}
	read := tool.New("read", "", nil, g.handler).WithResourceKey(key, tool.AccessRead)
	r := mustRegistry(t, read)
	calls := []tool.Call{call("a", "read", `{"path":"a"}`), call("odd", "read", `{}`), call("b", "read", `{"path":"b"}`)}
	done := runBatch(r, ctx, calls, tool.BatchOptions{})
	g.wait(t, ctx, "a")
	g.open("a")
	g.wait(t, ctx, "odd")
	if g.hasStarted("b") {
		t.Fatal("a keyed call overtook a call whose key could not be read")
	}
	g.open("odd")
	g.wait(t, ctx, "b")
	g.open("b")
	for _, ret := range <-done {
		wantSuccess(t, ret)
	}
}

func TestResourceKeysReadInOneGoPerTool(t *testing.T) {
	var asked [][]string
	var mu sync.Mutex
	keys := func(_ context.Context, args []json.RawMessage) []tool.KeyResult {
		out := make([]tool.KeyResult, len(args))
		var seen []string
		for i, a := range args {
			seen = append(seen, string(a))
			out[i] = tool.KeyResult{Key: string(a), OK: true}
		}
		mu.Lock()
		asked = append(asked, seen)
		mu.Unlock()
		return out
	}
	f := tool.New("host", "", nil, okHandler)
	f.ToolConfig().Resource = &tool.ResourceKey{Access: tool.AccessWrite, Keys: keys}
	r := mustRegistry(t, f, tool.New("other", "", nil, okHandler))
	rets := r.ExecuteBatch(context.Background(), nil, []tool.Call{
		call("1", "host", `{"n":1}`), call("2", "other", `{}`), call("3", "host", `{"n":2}`),
	}, tool.BatchOptions{})
	for _, ret := range rets {
		wantSuccess(t, ret)
	}
	if len(asked) != 1 || !slices.Equal(asked[0], []string{`{"n":1}`, `{"n":2}`}) {
		t.Fatalf("keys asked %v, want one question with both calls", asked)
	}
	// A lone keyed call has nothing to be ordered against: no question.
	asked = nil
	r.ExecuteBatch(context.Background(), nil, []tool.Call{call("1", "host", `{}`), call("2", "other", `{}`)}, tool.BatchOptions{})
	if len(asked) != 0 {
		t.Fatalf("keys asked for a lone keyed call: %v", asked)
	}
}

func TestKeyArgument(t *testing.T) {
	for _, tc := range []struct {
		name, args, key string
		ok              bool
	}{
		{"path", `{"path":"a/b","x":[1]}`, "a/b", true},
		{"path", `{"x":1}`, "", true},
		{"n", `{"n": 1.50}`, "1.50", true},
		{"o", `{"o": {"b": 1, "a": [2]}}`, `{"b":1,"a":[2]}`, true},
		{"/file/path", `{"file":{"path":"p"}}`, "p", true},
		{"/files/1", `{"files":["p","q"]}`, "q", true},
		{"/a~1b", `{"a/b":"s"}`, "s", true},
		{"path", `not json`, "", false},
	} {
		key, ok := tool.KeyArgument(tc.name)(json.RawMessage(tc.args))
		if key != tc.key || ok != tc.ok {
			t.Errorf("KeyArgument(%q)(%s) = %q, %v; want %q, %v", tc.name, tc.args, key, ok, tc.key, tc.ok)
		}
	}
	if err := tool.New("t", "", nil, okHandler).WithResourceArgument("p", "sideways").Err(); err == nil {
		t.Fatal("an unknown access was accepted")
	}
}

func TestMaxConcurrencyCapsOneToolAndNotTheOthers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	ids := []string{"x0", "x1", "x2", "x3", "x4", "x5", "y0", "y1"}
	g := newGated(ids...)
	x := tool.New("x", "", nil, g.handler).WithEffect(effect.ClassReadOnly).WithMaxConcurrency(2)
	y := tool.New("y", "", nil, g.handler).WithEffect(effect.ClassReadOnly)
	r := mustRegistry(t, x, y)
	if r.MaxConcurrencyFor("x") != 2 || r.MaxConcurrencyFor("y") != 0 {
		t.Fatalf("limits %d %d", r.MaxConcurrencyFor("x"), r.MaxConcurrencyFor("y"))
	}
	var calls []tool.Call
	for _, id := range ids {
		calls = append(calls, call(id, id[:1], `{}`))
	}
	done := runBatch(r, ctx, calls, tool.BatchOptions{})
	// Two calls of x and every call of y run; four calls of x wait.
	g.wait(t, ctx, "x0", "x1", "y0", "y1")
	g.open("y0")
	g.open("y1")
	for i := range 4 {
		// Each end of a call of x lets exactly the next one start.
		g.open(fmt.Sprintf("x%d", i))
		g.wait(t, ctx, fmt.Sprintf("x%d", i+2))
	}
	g.open("x4")
	g.open("x5")
	for i, ret := range <-done {
		wantSuccess(t, ret)
		if ret.ToolCallID != ids[i] {
			t.Fatalf("return %d out of order", i)
		}
	}
	if g.peak["x"] != 2 || g.peak["y"] != 2 {
		t.Fatalf("peak in flight x=%d y=%d, want 2 and 2", g.peak["x"], g.peak["y"])
	}
}

func TestMaxConcurrencyHoldsAcrossBatches(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	g := newGated("a0", "a1", "a2", "b0", "b1", "b2")
	x := tool.New("x", "", nil, g.handler).WithEffect(effect.ClassReadOnly).WithMaxConcurrency(2)
	// Two registries holding the tool stand for two runs of one agent.
	r1, r2 := mustRegistry(t, x), mustRegistry(t, x)
	batch := func(p string) []tool.Call {
		return []tool.Call{call(p+"0", "x", `{}`), call(p+"1", "x", `{}`), call(p+"2", "x", `{}`)}
	}
	d1 := runBatch(r1, ctx, batch("a"), tool.BatchOptions{})
	g.wait(t, ctx, "a0", "a1")
	d2 := runBatch(r2, ctx, batch("b"), tool.BatchOptions{})
	// The second run's calls wait behind the first run's third call.
	g.open("a0")
	g.wait(t, ctx, "a2")
	for _, id := range []string{"a1", "a2", "b0", "b1", "b2"} {
		g.open(id)
	}
	for _, ret := range append(<-d1, <-d2...) {
		wantSuccess(t, ret)
	}
	if g.peak["x"] != 2 {
		t.Fatalf("peak in flight %d across runs, want 2", g.peak["x"])
	}
}

func TestCallWaitingForItsToolEndsWithItsRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	g := newGated("a", "b")
	x := tool.New("x", "", nil, g.handler).WithMaxConcurrency(1)
	r := mustRegistry(t, x)
	d1 := runBatch(r, ctx, []tool.Call{call("a", "x", `{}`)}, tool.BatchOptions{})
	g.wait(t, ctx, "a")
	bctx, bcancel := context.WithCancel(ctx)
	d2 := runBatch(r, bctx, []tool.Call{call("b", "x", `{}`)}, tool.BatchOptions{})
	bcancel()
	wantKind(t, (<-d2)[0], tool.ErrorKindCancelled)
	g.open("a")
	wantSuccess(t, (<-d1)[0])
	if g.hasStarted("b") {
		t.Fatal("the cancelled call ran")
	}
	if x.ToolConfig().Concurrency.InFlight() != 0 {
		t.Fatal("a slot leaked")
	}
}

func TestCappedBatchStartsStarters(t *testing.T) {
	// Calls are answered from another goroutine, as a host answers them:
	// the cap holds on the started path, and no call takes the blocking
	// path (asyncTool's Call fails).
	var inFlight, peak atomic.Int32
	answers := make(chan func(), 16)
	answer := func(_ context.Context, _ *tool.Context, _ json.RawMessage, done func(tool.Result, error)) {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		answers <- func() { inFlight.Add(-1); done(tool.Text("ok"), nil) }
	}
	var tools []tool.Tool
	var names []string
	var starters []*asyncTool
	for i := range 6 {
		a := newAsync(fmt.Sprintf("t%d", i), answer)
		starters = append(starters, a)
		tools = append(tools, a)
		names = append(names, a.name)
	}
	r, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for ans := range answers {
			ans()
		}
	}()
	defer close(answers)
	for _, ret := range r.ExecuteBatch(context.Background(), nil, batchOf(names...), tool.BatchOptions{MaxConcurrency: 2}) {
		wantSuccess(t, ret)
	}
	for _, a := range starters {
		if a.starts.Load() != 1 {
			t.Fatalf("%s started %d times", a.name, a.starts.Load())
		}
	}
	if peak.Load() > 2 {
		t.Fatalf("peak in flight %d, want at most 2", peak.Load())
	}
}
