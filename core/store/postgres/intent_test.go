package postgres_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/intent/intenttest"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
)

func TestIntentJournalConformance(t *testing.T) {
	intenttest.Run(t, func(t *testing.T) intent.Journal {
		return postgres.NewIntentJournal(openDB(t, pgtest.DSN(t)))
	})
}

// Two pools on one database stand for two worker processes: what one
// appended, the other reads back, and its own append of the key loses.
func TestIntentJournalSharedAcrossWorkers(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := postgres.NewIntentJournal(openDB(t, dsn)), postgres.NewIntentJournal(openDB(t, dsn))
	ctx := t.Context()
	if _, _, err := a.Append(ctx, intent.Entry{Key: "k", Stream: "s", Body: []byte(`{"n": 1e3}`)}); err != nil {
		t.Fatal(err)
	}
	e, existed, err := b.Append(ctx, intent.Entry{Key: "k", Body: []byte(`2`)})
	if err != nil || !existed || string(e.Body) != `{"n": 1e3}` || e.Stream != "s" {
		t.Fatalf("%+v, %v, %v", e, existed, err)
	}
}
