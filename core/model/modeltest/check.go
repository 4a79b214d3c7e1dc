package modeltest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// waitFor polls cond every few milliseconds until it holds, failing tb
// (naming what) if it still does not after within: a bounded wait for an
// event that has no channel to receive from.
func waitFor(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(2 * time.Millisecond) // a poll interval, not a synchronisation
	}
}

// ProviderError returns the *model.ProviderError err wraps, failing tb
// unless err is one and model.ErrModel, or if its text or message shows
// one of secrets (the keys the model was given).
func ProviderError(tb testing.TB, err error, secrets ...string) *model.ProviderError {
	tb.Helper()
	var pe *model.ProviderError
	if !errors.As(err, &pe) {
		tb.Fatalf("err = %v (%T), want a *model.ProviderError", err, err)
	}
	if !errors.Is(err, model.ErrModel) {
		tb.Fatalf("errors.Is(err, model.ErrModel) = false for %v", err)
	}
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) || strings.Contains(pe.Message, s) {
			tb.Fatalf("the error shows a secret: %v", err)
		}
	}
	return pe
}
