package artifact_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/store"
)

func TestKindOf(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("sqlite: artifact put: %w", err) }
	for _, c := range []struct {
		err  error
		want artifact.ErrorKind
	}{
		{nil, ""},
		{errors.New("boom"), ""},
		{context.Canceled, ""},
		{wrap(artifact.ErrInvalidInput), artifact.KindInvalid},
		{wrap(artifact.ErrNotFound), artifact.KindNotFound},
		{wrap(store.ErrNotFound), artifact.KindNotFound},
		{wrap(artifact.ErrIdempotencyConflict), artifact.KindConflict},
		{wrap(artifact.ErrMetadataConflict), artifact.KindConflict},
		{wrap(artifact.ErrIntegrity), artifact.KindIntegrity},
		{wrap(artifact.ErrExpired), artifact.KindExpired},
		{wrap(errors.Join(store.ErrUnavailable, context.DeadlineExceeded)), artifact.KindUnavailable},
		{wrap(store.ErrClosed), artifact.KindUnavailable},
	} {
		if got := artifact.KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestSentinelsRefineStoreSentinels(t *testing.T) {
	for _, c := range []struct{ err, base error }{
		{artifact.ErrNotFound, store.ErrNotFound},
		{artifact.ErrIdempotencyConflict, store.ErrConflict},
		{artifact.ErrMetadataConflict, store.ErrConflict},
	} {
		if !errors.Is(fmt.Errorf("x: %w", c.err), c.base) {
			t.Errorf("%v does not match %v", c.err, c.base)
		}
	}
	if errors.Is(artifact.ErrIdempotencyConflict, artifact.ErrMetadataConflict) || errors.Is(artifact.ErrMetadataConflict, artifact.ErrIdempotencyConflict) {
		t.Error("the two conflicts must stay distinguishable")
	}
}

func TestErrorKindsListsEachKindOnce(t *testing.T) {
	kinds := artifact.ErrorKinds()
	want := []artifact.ErrorKind{"artifact_invalid", "artifact_not_found", "artifact_conflict", "artifact_integrity", "artifact_expired", "store_unavailable"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("ErrorKinds() = %v, want %v", kinds, want)
	}
	kinds[0] = "changed"
	if artifact.ErrorKinds()[0] != "artifact_invalid" {
		t.Fatal("ErrorKinds returned its own list")
	}
}
