package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/store"
)

func TestSpecializeMatchesBothLevels(t *testing.T) {
	own := store.Specialize("thing: not found", store.ErrNotFound)
	wrapped := fmt.Errorf("load 7: %w", own)
	if own.Error() != "thing: not found" || !errors.Is(wrapped, own) || !errors.Is(wrapped, store.ErrNotFound) || errors.Is(wrapped, store.ErrConflict) {
		t.Fatalf("%v: the specific and the general error must both match, and nothing else", wrapped)
	}
}
