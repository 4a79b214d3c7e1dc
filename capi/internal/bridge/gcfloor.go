package bridge

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
)

// The library's live heap is small (agents, sessions, the calls in flight),
// and with the default GOGC of 100 a batch of a few hundred calls makes the
// collector run every few runs: a quarter of the runtime's CPU on the 2 cores
// it shares with the event loop. A floor under the heap target spaces the
// cycles out while the heap is small and changes nothing once it is large:
// after each cycle the GC percent is set so that the next target is the
// larger of twice the live heap (GOGC=100) and the live heap plus the floor.
//
// GOGC in the environment turns this off (the user chose); so does
// STARWEAVER_GC_FLOOR_MB=0. The default floor is defaultGCFloorMB.
const defaultGCFloorMB = 16

// goHeapMinimum is the runtime's smallest heap target at GOGC=100; it
// scales with the percent (4 MB x GOGC/100), so a percent above
// 100*floor/goHeapMinimum would put the target above the floor even for an
// empty heap.
const goHeapMinimum = 4 << 20

// libraryGCFloor is the library's tuner (nil when off). The GC percent is
// the process's, so there is one.
var libraryGCFloor *gcFloor

func init() {
	if floor, ok := gcFloorFromEnv(os.Getenv); ok {
		libraryGCFloor = startGCFloor(floor)
	}
}

// gcFloorFromEnv reads the floor in bytes from the environment; ok is false
// when the floor is off.
func gcFloorFromEnv(getenv func(string) string) (uint64, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	mb := uint64(defaultGCFloorMB)
	if v := getenv("STARWEAVER_GC_FLOOR_MB"); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return 0, false // unreadable: leave the collector as Go sets it
		}
		mb = n
	}
	if mb == 0 {
		return 0, false
	}
	return mb << 20, true
}

// gcPercentFor is the GC percent that puts the next heap target at
// max(2*live, live+floor): for a heap much smaller than the floor, the
// floor itself (through the scaled minimum).
func gcPercentFor(live, floor uint64) int {
	limit := max(100, int(floor*100/goHeapMinimum))
	if live == 0 || floor/live >= uint64(limit)/100 {
		return limit
	}
	return max(100, int(floor*100/live))
}

// gcFloor re-tunes the collector once per cycle, from a finalizer: a
// sentinel made unreachable at each cycle's start is finalized after it.
type gcFloor struct {
	floor  atomic.Uint64
	sample []metrics.Sample                  // used by one tuning at a time: at start, then by the finalizer goroutine
	tuned  atomic.Pointer[func(percent int)] // tests: called after each tuning
}

type gcSentinel struct{ f *gcFloor }

func startGCFloor(floor uint64) *gcFloor {
	f := &gcFloor{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.floor.Store(floor)
	f.tune()
	f.arm()
	return f
}

func (f *gcFloor) arm() {
	s := &gcSentinel{f: f}
	runtime.SetFinalizer(s, func(s *gcSentinel) {
		// Arm first: the next sentinel exists before anyone hears of this
		// tuning, so a collection started after it finalizes the next
		// one (allocated during a cycle, it would survive that cycle).
		// Finalizers run one at a time, so tunings never overlap.
		s.f.arm()
		s.f.tune()
	})
}

func (f *gcFloor) tune() {
	metrics.Read(f.sample)
	var live uint64
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		live = f.sample[0].Value.Uint64()
	}
	percent := gcPercentFor(live, f.floor.Load())
	debug.SetGCPercent(percent)
	if tuned := f.tuned.Load(); tuned != nil {
		(*tuned)(percent)
	}
}
