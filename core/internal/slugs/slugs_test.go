package slugs_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/internal/slugs"
)

func TestTableFirstMatchWins(t *testing.T) {
	general := errors.New("general")
	specific := fmt.Errorf("specific: %w", general)
	table := slugs.Table{{Err: specific, Slug: "x_specific"}, {Err: general, Slug: "x_general"}}
	if got := table.Of(fmt.Errorf("ctx: %w", specific)); got != "x_specific" {
		t.Fatalf("specific: %q", got)
	}
	if got := table.Of(general); got != "x_general" {
		t.Fatalf("general: %q", got)
	}
	if got := table.Of(errors.New("other")); got != "" {
		t.Fatalf("unmatched: %q", got)
	}
	if got := table.List(); !slices.Equal(got, []string{"x_specific", "x_general"}) {
		t.Fatalf("list %v", got)
	}
}
