package intent_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/intent/intenttest"
)

func TestMemoryJournalConformance(t *testing.T) {
	intenttest.Run(t, func(t *testing.T) intent.Journal { return intent.NewMemoryJournal() })
}
