package bridge

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{0, 16 * mb, 400},        // target 4 MB x 4 = the floor
		{1 * mb, 16 * mb, 400},   // bounded: target max(16, 5) MB
		{4 * mb, 16 * mb, 400},   // target 20 MB: live + floor
		{8 * mb, 16 * mb, 200},   // target 24 MB
		{16 * mb, 16 * mb, 100},  // both rules agree
		{64 * mb, 16 * mb, 100},  // a large heap keeps GOGC=100
		{1 * mb, 2 * mb, 100},    // a floor under the runtime's minimum changes nothing
		{1 * mb, 1 << 30, 25600}, // a 1 GiB floor
		{512 * mb, 1 << 30, 200}, // target 1.5 GiB
	} {
		if got := gcPercentFor(c.live, c.floor); got != c.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

func TestGCFloorFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		name  string
		env   map[string]string
		floor uint64
		on    bool
	}{
		{"default", nil, defaultGCFloorMB << 20, true},
		{"GOGC set: the user's choice", map[string]string{"GOGC": "200"}, 0, false},
		{"explicit floor", map[string]string{"STARWEAVER_GC_FLOOR_MB": "64"}, 64 << 20, true},
		{"off", map[string]string{"STARWEAVER_GC_FLOOR_MB": "0"}, 0, false},
		{"unreadable", map[string]string{"STARWEAVER_GC_FLOOR_MB": "lots"}, 0, false},
	} {
		floor, on := gcFloorFromEnv(env(c.env))
		if floor != c.floor || on != c.on {
			t.Errorf("%s: got (%d, %v), want (%d, %v)", c.name, floor, on, c.floor, c.on)
		}
	}
}

// TestGCFloorRetunesAfterEachCycle checks that the percent follows the
// floor cycle after cycle: a 1 GiB floor over this test binary's small heap
// puts the percent above 100 after every collection.
func TestGCFloorRetunesAfterEachCycle(t *testing.T) {
	f := libraryGCFloor
	if f == nil { // GOGC is set for this test binary: a tuner of the test's own
		defer debug.SetGCPercent(debug.SetGCPercent(100))
		f = startGCFloor(16 << 20)
	}
	tuned := make(chan int, 16)
	hook := func(p int) {
		select {
		case tuned <- p:
		default:
		}
	}
	f.tuned.Store(&hook)
	defer f.tuned.Store(nil)
	defer f.floor.Store(f.floor.Swap(1 << 30))
	for cycle := 0; cycle < 3; cycle++ {
		runtime.GC()
		select {
		case p := <-tuned:
			if p <= 100 {
				t.Fatalf("cycle %d: percent %d, want > 100 under a 1 GiB floor", cycle, p)
			}
			if got := debug.SetGCPercent(p); got != p {
				t.Fatalf("cycle %d: the collector runs at %d, tuned to %d", cycle, got, p)
			}
		case <-time.After(10 * time.Second): // a bound, not a wait: finalizers run right after the cycle
			t.Fatalf("cycle %d: no tuning after a collection", cycle)
		}
	}
}
