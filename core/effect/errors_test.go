package effect_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/store"
)

func TestSlugs(t *testing.T) {
	want := []string{"effect_ambiguous", "effect_idempotency_conflict", "effect_failed", "effect_reconciliation",
		"effect_conflict", "effect_not_found", "effect_invalid"}
	if got := effect.ErrorSlugs(); !slices.Equal(got, want) {
		t.Fatalf("ErrorSlugs() = %v, want %v", got, want)
	}
	for err, slug := range map[error]string{
		&effect.AmbiguousError{ID: "e"}:                      "effect_ambiguous",
		fmt.Errorf("ctx: %w", &effect.FailedError{ID: "e"}):  "effect_failed",
		fmt.Errorf("x: %w", effect.ErrIdempotencyConflict):   "effect_idempotency_conflict",
		fmt.Errorf("%w: e: boom", effect.ErrReconciliation):  "effect_reconciliation",
		fmt.Errorf("effect %q: %w", "e", effect.ErrConflict): "effect_conflict",
		effect.ErrNotFound:     "effect_not_found",
		effect.ErrUnknownClass: "effect_invalid",
		store.ErrConflict:      "", // a store's own conflict is not an effect's
		context.Canceled:       "",
		errors.Join(store.ErrUnavailable, errors.New("disk full")): "",
	} {
		if got := effect.Slug(err); got != slug {
			t.Errorf("Slug(%v) = %q, want %q", err, got, slug)
		}
	}
}

func TestSentinelsMatchStoreSentinels(t *testing.T) {
	if !errors.Is(effect.ErrConflict, store.ErrConflict) || !errors.Is(effect.ErrNotFound, store.ErrNotFound) {
		t.Fatal("effect sentinels must match the store sentinels they refine")
	}
	if effect.ErrConflict.Error() != "effect: conflict" || effect.ErrNotFound.Error() != "effect: not found" {
		t.Fatalf("messages: %q, %q", effect.ErrConflict, effect.ErrNotFound)
	}
}

func TestAmbiguousErrorMessage(t *testing.T) {
	err := error(&effect.AmbiguousError{ID: "e1"})
	if err.Error() != `effect: ambiguous: effect "e1" may already have executed` {
		t.Fatalf("%q", err)
	}
	err = &effect.AmbiguousError{ID: "e1", Cause: context.DeadlineExceeded}
	if !errors.Is(err, effect.ErrAmbiguous) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v matches neither", err)
	}
}

func TestNotExecuted(t *testing.T) {
	base := errors.New("refused")
	if effect.NotExecuted(nil) != nil {
		t.Fatal("NotExecuted(nil) != nil")
	}
	err := fmt.Errorf("send: %w", effect.NotExecuted(base))
	if !effect.IsNotExecuted(err) || !errors.Is(err, base) || err.Error() != "send: refused" {
		t.Fatalf("%v", err)
	}
	if effect.IsNotExecuted(base) {
		t.Fatal("an unmarked error counts as not executed")
	}
}
