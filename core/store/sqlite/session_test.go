package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent/sessionstoretest"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/session/sessiontest"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

func TestSessionStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return sqlite.NewSessionStore(openAt(t, filepath.Join(t.TempDir(), "sw.db")))
	})
}

func TestSessionStoreConformanceInMemory(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return sqlite.NewSessionStore(openAt(t, ":memory:"))
	})
}

// Two handles on one file, as two processes on one machine open it: a
// waiting run is approved and finished by the other worker, and
// concurrent resumes from both run the approved call once.
func TestSessionStoreDurableAcrossHandles(t *testing.T) {
	sessionstoretest.RunDurable(t, func(t *testing.T) (session.Store, session.Store) {
		path := filepath.Join(t.TempDir(), "sw.db")
		return sqlite.NewSessionStore(openAt(t, path)), sqlite.NewSessionStore(openAt(t, path))
	})
}

// Sessions survive closing and reopening the file.
func TestSessionStoreSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := sqlite.NewSessionStore(db).Save(ctx, "conv_1", []byte(`{"v":1}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := sqlite.NewSessionStore(openAt(t, path)).Load(ctx, "conv_1")
	if err != nil || string(got.State) != `{"v":1}` || got.Revision != rev {
		t.Fatalf("after reopening: %q at %d, %v", got.State, got.Revision, err)
	}
}
