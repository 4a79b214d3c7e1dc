package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

// failing is a tool of class cls that fails unexpectedly on every call
// and counts its attempts.
func failing(name string, cls effect.Class, n *atomic.Int32) *tool.Function {
	f := tool.New(name, "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		n.Add(1)
		return tool.Result{}, errors.New("connection reset")
	}).WithMaxRetries(2)
	if cls != "" {
		f = f.WithEffect(cls)
	}
	return f
}

func ambiguous(ret tool.Return) bool {
	b, _ := ret.Metadata[tool.MetaAmbiguous].(bool)
	return b
}

// Only calls that are safe to repeat are re-run after an unexpected
// failure; the others run once and their return says the outcome is
// unknown.
func TestEffectClassDecidesReRuns(t *testing.T) {
	cases := []struct {
		cls       effect.Class
		attempts  int32
		ambiguous bool
	}{
		{effect.ClassUndeclared, 3, false},
		{effect.ClassPure, 3, false},
		{effect.ClassReadOnly, 3, false},
		{effect.ClassIdempotentWrite, 3, false}, // every call has a key
		{effect.ClassNonIdempotentWrite, 1, true},
		{effect.ClassDestructive, 1, true},
		{effect.ClassUnknown, 1, true},
	}
	for _, c := range cases {
		var n atomic.Int32
		reg, err := tool.NewRegistry(failing("send", c.cls, &n))
		if err != nil {
			t.Fatal(err)
		}
		ret := reg.Execute(context.Background(), nil, tool.Call{ID: "c1", Name: "send", Arguments: json.RawMessage(`{}`)})
		if n.Load() != c.attempts || !ret.IsError || ambiguous(ret) != c.ambiguous {
			t.Errorf("%q: %d attempts, ambiguous %v (want %d, %v)", c.cls, n.Load(), ambiguous(ret), c.attempts, c.ambiguous)
		}
		if c.ambiguous {
			content := ret.Content.(map[string]any)
			if msg, _ := content["message"].(string); msg != "the call failed and may already have taken effect, so it was not retried (effect "+string(c.cls)+"): connection reset" {
				t.Errorf("%q: message %q", c.cls, msg)
			}
		}
	}
}

// A registry default makes undeclared tools fail closed; declared ones
// keep their class.
func TestDefaultEffectAppliesToUndeclaredTools(t *testing.T) {
	var undeclared, pure atomic.Int32
	reg, err := tool.NewRegistry(failing("a", "", &undeclared), failing("b", effect.ClassPure, &pure))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.SetDefaultEffect(effect.ClassUnknown); err != nil {
		t.Fatal(err)
	}
	a := reg.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "a"})
	reg.Execute(context.Background(), nil, tool.Call{ID: "2", Name: "b"})
	if undeclared.Load() != 1 || !ambiguous(a) || pure.Load() != 3 {
		t.Fatalf("undeclared ran %d (ambiguous %v), pure ran %d", undeclared.Load(), ambiguous(a), pure.Load())
	}
	if reg.EffectOf("a") != effect.ClassUnknown || reg.EffectOf("b") != effect.ClassPure {
		t.Fatalf("EffectOf: %q %q", reg.EffectOf("a"), reg.EffectOf("b"))
	}
	// Registries derived from it (an agent clones one per run, and selects
	// the tools available at each step) keep the default.
	for _, d := range []*tool.Registry{reg.Clone(), reg.Select([]string{"a"})} {
		if d.EffectOf("a") != effect.ClassUnknown {
			t.Fatalf("a derived registry lost the default: EffectOf(a) = %q", d.EffectOf("a"))
		}
	}
	if err := reg.SetDefaultEffect("sometimes"); !errors.Is(err, tool.ErrInvalidOption) {
		t.Fatalf("SetDefaultEffect(sometimes) = %v", err)
	}
}

// Registries derived from one (a run clones the agent's, a step selects
// the available tools) keep its default effect, so undeclared tools still
// fail closed there.
func TestDerivedRegistriesKeepTheDefaultEffect(t *testing.T) {
	var calls atomic.Int32
	reg, err := tool.NewRegistry(failing("a", "", &calls))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.SetDefaultEffect(effect.ClassUnknown); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*tool.Registry{"Clone": reg.Clone(), "Select": reg.Select([]string{"a"})} {
		calls.Store(0)
		ret := r.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "a"})
		if r.EffectOf("a") != effect.ClassUnknown || calls.Load() != 1 || !ambiguous(ret) {
			t.Errorf("%s: effect %q, ran %d times (ambiguous %v)", name, r.EffectOf("a"), calls.Load(), ambiguous(ret))
		}
	}
}

func TestTimeoutOfAWriteIsAmbiguous(t *testing.T) {
	for _, cls := range []effect.Class{effect.ClassPure, effect.ClassDestructive} {
		slow := tool.New("slow", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}).WithEffect(cls).WithTimeout(time.Millisecond)
		reg, err := tool.NewRegistry(slow)
		if err != nil {
			t.Fatal(err)
		}
		ret := reg.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "slow"})
		if ret.ErrorKind() != tool.ErrorKindTimeout || ambiguous(ret) != (cls == effect.ClassDestructive) {
			t.Fatalf("%s: kind %s ambiguous %v", cls, ret.ErrorKind(), ambiguous(ret))
		}
	}
}

func TestUnknownEffectIsRefused(t *testing.T) {
	f := tool.New("x", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("ok"), nil
	}).WithEffect("sometimes")
	if !errors.Is(f.Err(), tool.ErrInvalidOption) {
		t.Fatalf("Err() = %v", f.Err())
	}
	if _, err := tool.NewRegistry(f); !errors.Is(err, tool.ErrInvalidOption) {
		t.Fatalf("registration = %v", err)
	}
}

// Calls of one pure or read-only tool run in parallel in one batch; calls
// of one write tool run in model order.
func TestRepeatedNamesRunInParallelOnlyWhenSafe(t *testing.T) {
	for _, cls := range []effect.Class{effect.ClassReadOnly, effect.ClassIdempotentWrite} {
		var mu sync.Mutex
		inFlight, peak := 0, 0
		both := make(chan struct{})
		var once sync.Once
		f := tool.New("look", "", nil, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			if inFlight == 2 {
				once.Do(func() { close(both) })
			}
			mu.Unlock()
			// In parallel the second call arrives; in sequence it cannot.
			select {
			case <-both:
			case <-time.After(50 * time.Millisecond):
			}
			mu.Lock()
			inFlight--
			mu.Unlock()
			return tool.Text("ok"), nil
		}).WithEffect(cls)
		reg, err := tool.NewRegistry(f)
		if err != nil {
			t.Fatal(err)
		}
		calls := []tool.Call{{ID: "1", Name: "look"}, {ID: "2", Name: "look", Index: 1}}
		want := ""
		if cls == effect.ClassIdempotentWrite {
			want = tool.SeqRepeatedName
		}
		if got := reg.SequentialReason(calls, false); got != want {
			t.Fatalf("%s: SequentialReason = %q, want %q", cls, got, want)
		}
		reg.ExecuteBatch(context.Background(), nil, calls, tool.BatchOptions{})
		if wantPeak := map[bool]int{true: 2, false: 1}[want == ""]; peak != wantPeak {
			t.Fatalf("%s: %d calls in flight at once, want %d", cls, peak, wantPeak)
		}
	}
}

// Every attempt of a call sees one idempotency key; calls at other
// positions, steps or runs see others.
func TestIdempotencyKeyIsStablePerCall(t *testing.T) {
	var keys []string
	var mu sync.Mutex
	f := tool.New("write", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		keys = append(keys, tc.IdempotencyKey())
		n := len(keys)
		mu.Unlock()
		if n == 1 {
			return tool.Result{}, errors.New("transient")
		}
		return tool.Text("ok"), nil
	}).WithEffect(effect.ClassIdempotentWrite)
	reg, err := tool.NewRegistry(f)
	if err != nil {
		t.Fatal(err)
	}
	base := &tool.Context{ConversationID: "conv", RunID: "run", RunStep: 2}
	reg.Execute(context.Background(), base, tool.Call{ID: "a", Name: "write", Index: 1})
	if len(keys) != 2 || keys[0] != keys[1] || keys[0] != effect.Key("conv", "run", 2, 1) {
		t.Fatalf("keys %q", keys)
	}
	reg.Execute(context.Background(), base, tool.Call{ID: "b", Name: "write", Index: 0})
	if keys[2] == keys[0] {
		t.Fatal("two positions share a key")
	}
}
