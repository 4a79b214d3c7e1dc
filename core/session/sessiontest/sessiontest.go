// Package sessiontest checks implementations of [session.Store], as
// testing/fstest checks file systems: Run checks the store's contract
// (compare-and-swap rules, not found, create races, concurrent saves).
//
// Every store of the module runs it: the memory store in core/session,
// the SQLite and PostgreSQL stores in their packages' tests. Agents
// sharing a store are checked by core/agent/sessionstoretest.
package sessiontest

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/internal/storeerr"
	"github.com/starweaver-go/starweaver/core/session"
)

// Run checks the Store contract on stores made by newStore, one per
// subtest.
func Run(t *testing.T, newStore func(t *testing.T) session.Store) {
	ctx := context.Background()

	t.Run("LoadUnknown", func(t *testing.T) {
		st := newStore(t)
		if _, err := st.Load(ctx, "missing"); !errors.Is(err, storeerr.ErrNotFound) {
			t.Fatalf("Load of an unknown id: err = %v, want storeerr.ErrNotFound", err)
		}
	})

	t.Run("CreateThenLoad", func(t *testing.T) {
		st := newStore(t)
		rev := mustSave(t, st, "s", []byte(`{"n":1}`), 0)
		if rev == 0 {
			t.Fatal("create returned revision 0")
		}
		expect(t, st, "s", []byte(`{"n":1}`), rev)
	})

	t.Run("CreateTwiceConflicts", func(t *testing.T) {
		st := newStore(t)
		rev := mustSave(t, st, "s", []byte("first"), 0)
		if _, err := st.Save(ctx, "s", []byte("second"), 0); !errors.Is(err, storeerr.ErrConflict) {
			t.Fatalf("second create: err = %v, want storeerr.ErrConflict", err)
		}
		expect(t, st, "s", []byte("first"), rev)
	})

	t.Run("CompareAndSwap", func(t *testing.T) {
		st := newStore(t)
		r1 := mustSave(t, st, "s", []byte("one"), 0)
		r2 := mustSave(t, st, "s", []byte("two"), r1)
		if r2 <= r1 {
			t.Fatalf("revision went from %d to %d, want it to grow", r1, r2)
		}
		expect(t, st, "s", []byte("two"), r2)
		for _, stale := range []uint64{r1, r2 + 1} {
			if _, err := st.Save(ctx, "s", []byte("lost"), stale); !errors.Is(err, storeerr.ErrConflict) {
				t.Fatalf("save at revision %d (record at %d): err = %v, want storeerr.ErrConflict", stale, r2, err)
			}
		}
		expect(t, st, "s", []byte("two"), r2)
		r3 := mustSave(t, st, "s", []byte("three"), r2)
		if r3 <= r2 {
			t.Fatalf("revision went from %d to %d, want it to grow", r2, r3)
		}
		expect(t, st, "s", []byte("three"), r3)
	})

	t.Run("UpdateOfUnknownConflicts", func(t *testing.T) {
		st := newStore(t)
		if _, err := st.Save(ctx, "missing", []byte("x"), 3); !errors.Is(err, storeerr.ErrConflict) {
			t.Fatalf("update of an unknown id: err = %v, want storeerr.ErrConflict", err)
		}
		if _, err := st.Load(ctx, "missing"); !errors.Is(err, storeerr.ErrNotFound) {
			t.Fatalf("a failed update created the record: err = %v", err)
		}
	})

	t.Run("SessionsAreIndependent", func(t *testing.T) {
		st := newStore(t)
		ra := mustSave(t, st, "a", []byte("A"), 0)
		rb := mustSave(t, st, "b", []byte("B"), 0)
		ra2 := mustSave(t, st, "a", []byte("A2"), ra)
		expect(t, st, "a", []byte("A2"), ra2)
		expect(t, st, "b", []byte("B"), rb)
	})

	t.Run("BytesAreCopiedAndExact", func(t *testing.T) {
		st := newStore(t)
		// Every byte value, and a state larger than a page of any backend.
		state := make([]byte, 1<<20)
		for i := range state {
			state[i] = byte(i * 7)
		}
		want := bytes.Clone(state)
		rev := mustSave(t, st, "s", state, 0)
		state[0]++ // the store must not keep the caller's slice
		got, err := st.Load(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.State, want) || got.Revision != rev {
			t.Fatalf("the state did not come back exactly (%d bytes, revision %d)", len(got.State), got.Revision)
		}
		got.State[1]++ // nor hand out its own
		expect(t, st, "s", want, rev)
	})

	t.Run("CancelledContext", func(t *testing.T) {
		st := newStore(t)
		rev := mustSave(t, st, "s", []byte("kept"), 0)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.Save(cctx, "s", []byte("lost"), rev); err == nil {
			t.Fatal("a save with a cancelled context succeeded")
		}
		if _, err := st.Load(cctx, "s"); err == nil {
			t.Fatal("a load with a cancelled context succeeded")
		}
		expect(t, st, "s", []byte("kept"), rev)
	})

	t.Run("CreateRace", func(t *testing.T) {
		st := newStore(t)
		const n = 8
		errs := Race(n, func(i int) error {
			_, err := st.Save(ctx, "s", []byte(strconv.Itoa(i)), 0)
			return err
		})
		winner := onlyWinner(t, errs)
		got, err := st.Load(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if string(got.State) != strconv.Itoa(winner) {
			t.Fatalf("stored %q, but creator %d won", got.State, winner)
		}
	})

	t.Run("CompareAndSwapRace", func(t *testing.T) {
		st := newStore(t)
		rev := mustSave(t, st, "s", []byte("base"), 0)
		const n = 8
		errs := Race(n, func(i int) error {
			_, err := st.Save(ctx, "s", []byte(strconv.Itoa(i)), rev)
			return err
		})
		winner := onlyWinner(t, errs)
		got, err := st.Load(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if string(got.State) != strconv.Itoa(winner) || got.Revision <= rev {
			t.Fatalf("stored %q at revision %d, but saver %d won over revision %d", got.State, got.Revision, winner, rev)
		}
	})

	t.Run("ConcurrentIncrements", func(t *testing.T) {
		// Load-modify-save with retries on conflict loses no update.
		st := newStore(t)
		mustSave(t, st, "s", []byte("0"), 0)
		const workers, each = 4, 10
		errs := Race(workers, func(int) error {
			for k := 0; k < each; k++ {
				for {
					cur, err := st.Load(ctx, "s")
					if err != nil {
						return err
					}
					n, err := strconv.Atoi(string(cur.State))
					if err != nil {
						return err
					}
					_, err = st.Save(ctx, "s", []byte(strconv.Itoa(n+1)), cur.Revision)
					if err == nil {
						break
					}
					if !errors.Is(err, storeerr.ErrConflict) {
						return err
					}
				}
			}
			return nil
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("worker %d: %v", i, err)
			}
		}
		got, err := st.Load(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.Itoa(workers * each); string(got.State) != want {
			t.Fatalf("counter = %s, want %s: an update was lost", got.State, want)
		}
	})
}

func mustSave(t *testing.T, st session.Store, id string, state []byte, expected uint64) uint64 {
	t.Helper()
	rev, err := st.Save(context.Background(), id, state, expected)
	if err != nil {
		t.Fatalf("save %s over revision %d: %v", id, expected, err)
	}
	return rev
}

func expect(t *testing.T, st session.Store, id string, state []byte, rev uint64) {
	t.Helper()
	got, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	if !bytes.Equal(got.State, state) || got.Revision != rev {
		t.Fatalf("load %s = %.40q at revision %d, want %.40q at %d", id, got.State, got.Revision, state, rev)
	}
}

// Race runs f(0..n-1) in goroutines released together, and returns their
// errors: the contention the store suites (this one and
// core/agent/sessionstoretest) put a store under.
func Race(n int, f func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// onlyWinner checks that exactly one of errs is nil and the others are
// conflicts, and returns the winner's index.
func onlyWinner(t *testing.T, errs []error) int {
	t.Helper()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("savers %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, storeerr.ErrConflict):
			t.Fatalf("saver %d: err = %v, want storeerr.ErrConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("none of %d savers won", len(errs))
	}
	return winner
}
