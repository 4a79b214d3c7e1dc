package effect_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

// countingStore counts a store's calls.
type countingStore struct {
	effect.Store
	reads, swaps atomic.Int32
	failSwaps    error
}

func (c *countingStore) Load(ctx context.Context, id string) (effect.Record, error) {
	c.reads.Add(1)
	return c.Store.Load(ctx, id)
}

func (c *countingStore) FindByKey(ctx context.Context, key string) (effect.Record, error) {
	c.reads.Add(1)
	return c.Store.FindByKey(ctx, key)
}

func (c *countingStore) CompareAndSwap(ctx context.Context, rec effect.Record, expected uint64) error {
	c.swaps.Add(1)
	if c.failSwaps != nil && rec.Status.State != effect.StateStarted {
		return c.failSwaps
	}
	return c.Store.CompareAndSwap(ctx, rec, expected)
}

func (c *countingStore) reset() { c.reads.Store(0); c.swaps.Store(0) }

// The journal's cost is what the consumer pays per tool call: a fresh
// call is two writes (started, completed) and no read; a replay is one
// refused create and one read.
func TestExecuteCosts(t *testing.T) {
	ctx := context.Background()
	s := &countingStore{Store: effect.NewMemoryStore()}
	ex := &effect.Executor{Store: s}
	req := effect.Request{Key: effect.Key("s", "r", 0, 0), Tool: "t", Class: effect.ClassIdempotentWrite, Input: json.RawMessage(`{}`)}
	ok := func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{Output: json.RawMessage(`1`)}, nil
	}
	if _, err := ex.Execute(ctx, req, ok); err != nil {
		t.Fatal(err)
	}
	if s.reads.Load() != 0 || s.swaps.Load() != 2 {
		t.Fatalf("fresh call: %d reads, %d swaps; want 0 and 2", s.reads.Load(), s.swaps.Load())
	}
	s.reset()
	if res, err := ex.Execute(ctx, req, ok); err != nil || !res.Replayed {
		t.Fatalf("replay = %+v, %v", res, err)
	}
	if s.reads.Load() != 1 || s.swaps.Load() != 1 {
		t.Fatalf("replay: %d reads, %d swaps; want 1 and 1", s.reads.Load(), s.swaps.Load())
	}
}

// When the completion cannot be recorded the effect did happen: the
// caller gets its output along with the error, and the record stays
// started, so a later attempt fails closed.
func TestExecuteReportsOutputWhenCompletionIsNotRecorded(t *testing.T) {
	ctx := context.Background()
	down := errors.New("disk full")
	s := &countingStore{Store: effect.NewMemoryStore(), failSwaps: down}
	req := effect.Request{Key: effect.Key("s", "r", 0, 0), Tool: "t", Class: effect.ClassNonIdempotentWrite, Input: json.RawMessage(`{}`)}
	res, err := (&effect.Executor{Store: s}).Execute(ctx, req, func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{Output: json.RawMessage(`"sent"`)}, nil
	})
	if !errors.Is(err, down) || string(res.Output) != `"sent"` {
		t.Fatalf("= %+v, %v", res, err)
	}
	s.failSwaps = nil
	_, err = (&effect.Executor{Store: s}).Execute(ctx, req, func(context.Context) (effect.Outcome, error) {
		t.Fatal("the handler ran again")
		return effect.Outcome{}, nil
	})
	if !errors.Is(err, effect.ErrAmbiguous) {
		t.Fatalf("later attempt: %v", err)
	}
}

func TestExecuteRejectsOutputThatIsNotJSON(t *testing.T) {
	s := effect.NewMemoryStore()
	req := effect.Request{Key: "k", Tool: "t", Input: json.RawMessage(`{}`)}
	_, err := (&effect.Executor{Store: s}).Execute(context.Background(), req, func(context.Context) (effect.Outcome, error) {
		return effect.Outcome{Output: json.RawMessage(`{oops`)}, nil
	})
	if !errors.Is(err, effect.ErrAmbiguous) || !errors.Is(err, effect.ErrInvalid) {
		t.Fatalf("error = %v", err)
	}
}

func TestExecutorMisusePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"no store": func() {
			(&effect.Executor{}).Execute(context.Background(), effect.Request{}, func(context.Context) (effect.Outcome, error) { return effect.Outcome{}, nil })
		},
		"no handler": func() {
			(&effect.Executor{Store: effect.NewMemoryStore()}).Execute(context.Background(), effect.Request{}, nil)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
