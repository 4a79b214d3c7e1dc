package optionerr_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

func TestErrorKeepsTheMessageAndMatchesTheSentinel(t *testing.T) {
	sentinel := errors.New("pkg: invalid option")
	err := optionerr.New(sentinel, "x: %s must be positive, got %d", "n", 0)
	if got := err.Error(); got != "x: n must be positive, got 0" {
		t.Fatalf("message %q", got)
	}
	if !errors.Is(err, sentinel) {
		t.Fatal("the error does not match its sentinel")
	}
	if errors.Is(err, errors.New("pkg: invalid option")) {
		t.Fatal("the error matches another sentinel with the same text")
	}
	var oe *optionerr.Error
	if !errors.As(err, &oe) {
		t.Fatal("errors.As does not find *optionerr.Error")
	}
}
