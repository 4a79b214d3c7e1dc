package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/intent/intenttest"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

func TestIntentJournalConformance(t *testing.T) {
	intenttest.Run(t, func(t *testing.T) intent.Journal {
		return sqlite.NewIntentJournal(openAt(t, filepath.Join(t.TempDir(), "sw.db")))
	})
}

func TestIntentJournalConformanceInMemory(t *testing.T) {
	intenttest.Run(t, func(t *testing.T) intent.Journal { return sqlite.NewIntentJournal(openAt(t, ":memory:")) })
}

// Two handles on one file stand for two worker processes: what one
// realised, the other replays.
func TestIntentJournalTwoHandlesShareOneJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sw.db")
	a, b := sqlite.NewIntentJournal(openAt(t, path)), sqlite.NewIntentJournal(openAt(t, path))
	ctx := t.Context()
	if _, _, err := a.Append(ctx, intent.Entry{Key: "k", Stream: "s", Body: []byte(`{"n": 1}`)}); err != nil {
		t.Fatal(err)
	}
	e, existed, err := b.Append(ctx, intent.Entry{Key: "k", Body: []byte(`2`)})
	if err != nil || !existed || string(e.Body) != `{"n": 1}` || e.Stream != "s" {
		t.Fatalf("%+v, %v, %v", e, existed, err)
	}
}
