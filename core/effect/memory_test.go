package effect_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/effect/effecttest"
)

func TestMemoryStoreConformance(t *testing.T) {
	effecttest.Run(t, func(*testing.T) effect.Store { return effect.NewMemoryStore() })
}

func TestZeroMemoryStoreConformance(t *testing.T) {
	effecttest.Run(t, func(*testing.T) effect.Store { return new(effect.MemoryStore) })
}

// A Batcher is a Store too: the whole suite runs through its group
// commit.
func TestBatcherConformance(t *testing.T) {
	effecttest.Run(t, func(*testing.T) effect.Store { return effect.NewBatcher(effect.NewMemoryStore(), 4) })
}
