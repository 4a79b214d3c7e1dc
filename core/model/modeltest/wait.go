package modeltest

import (
	"testing"
	"time"
)

// WaitFor polls cond every few milliseconds until it holds, failing tb
// (naming what) if it still does not after within: a bounded wait for an
// event that has no channel to receive from.
func WaitFor(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(2 * time.Millisecond) // a poll interval, not a synchronisation
	}
}
