package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/artifact/artifacttest"
	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

func openDB(t testing.TB) *sqlite.DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "sw.db"))
}

// openAt opens the database at path, closed when t ends.
func openAt(t testing.TB, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tamperable lets the conformance suite corrupt rows behind the store.
type tamperable struct {
	*sqlite.ArtifactStore
	db *sqlite.DB
}

func (s tamperable) Tamper(ctx context.Context, r artifact.Ref, data []byte) error {
	res, err := s.db.Writer().ExecContext(ctx, `UPDATE starweaver_artifacts SET media_type = ?, size_bytes = ?, sha256 = ?,
		name = ?, bytes = ?, created_at_ms = ?, expires_at_ms = ? WHERE scope = ? AND artifact_id = ?`,
		r.MediaType, r.Size, r.SHA256, r.Name, data, r.CreatedAtUnixMS, r.ExpiresAtUnixMS, r.Scope.String(), r.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("tamper: %d rows", n)
	}
	return nil
}

func TestArtifactStoreConformance(t *testing.T) {
	artifacttest.Run(t, func(t *testing.T, cfg artifact.Config) artifact.Store {
		db := openDB(t)
		return tamperable{sqlite.NewArtifactStore(db, cfg), db}
	})
}

func TestArtifactStoreInMemoryDatabase(t *testing.T) {
	artifacttest.Run(t, func(t *testing.T, cfg artifact.Config) artifact.Store {
		db, err := sqlite.Open(context.Background(), ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return tamperable{sqlite.NewArtifactStore(db, cfg), db}
	})
}

func TestArtifactsSurviveReopening(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	sc, _ := artifact.ParseScope("tenant.acme")
	w, _ := artifact.NewWrite(sc, "k", "application/pdf", []byte("%PDF-1.7 report"))
	w, _ = w.WithName("report.pdf")

	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := sqlite.NewArtifactStore(db, artifact.Config{}).Put(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := sqlite.NewArtifactStore(db, artifact.Config{})
	a, err := s.Get(ctx, ref)
	if err != nil || string(a.Bytes) != "%PDF-1.7 report" || !a.Ref.Equal(ref) {
		t.Fatalf("after reopening: %+v, %v", a, err)
	}
	// The idempotency key survived too.
	if again, err := s.Put(ctx, w); err != nil || !again.Equal(ref) {
		t.Fatalf("replay after reopening = %+v, %v", again, err)
	}
	other, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("other"))
	if _, err := s.Put(ctx, other); !errors.Is(err, artifact.ErrIdempotencyConflict) {
		t.Fatalf("key reuse after reopening: err = %v, want ErrIdempotencyConflict", err)
	}
}

func TestArtifactStoreUnavailable(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "sw.db"))
	if err != nil {
		t.Fatal(err)
	}
	artifacttest.RunUnavailable(t, sqlite.NewArtifactStore(db, artifact.Config{}), func() { db.Close() }, dir)
}

func TestArtifactPutCancelled(t *testing.T) {
	db := openDB(t)
	s := sqlite.NewArtifactStore(db, artifact.Config{})
	sc, _ := artifact.ParseScope("s")
	w, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Put(ctx, w); !errors.Is(err, context.Canceled) || !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("err = %v, want context.Canceled and store.ErrUnavailable", err)
	}
	wantEmpty(t, s, sc)
}

// A put whose key insert fails leaves no artifact behind: both rows are
// written in one transaction.
func TestArtifactPutIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	s := sqlite.NewArtifactStore(db, artifact.Config{})
	sc, _ := artifact.ParseScope("s")
	w, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("x"))
	if _, err := db.Writer().ExecContext(ctx, `CREATE TRIGGER fail_keys BEFORE INSERT ON starweaver_artifact_idempotency
		BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, w); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("err = %v, want store.ErrUnavailable", err)
	}
	wantEmpty(t, s, sc)
	if _, err := db.Writer().ExecContext(ctx, `DROP TRIGGER fail_keys`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, w); err != nil {
		t.Fatal(err)
	}
}

func wantEmpty(t *testing.T, s artifact.Store, sc artifact.Scope) {
	t.Helper()
	p, err := s.List(context.Background(), sc, "", 10)
	if err != nil || len(p.Items) != 0 {
		t.Fatalf("list = %+v, %v; want nothing stored", p, err)
	}
}

// Two handles on one file (two processes, as far as SQLite can tell)
// racing to put settle like one: IMMEDIATE transactions serialise them
// through the file lock.
func TestArtifactPutRaceAcrossHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sw.db")
	var stores []artifact.Store
	for range 2 {
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		stores = append(stores, sqlite.NewArtifactStore(db, artifact.Config{}))
	}
	artifacttest.RunConcurrent(t, stores...)
}

func BenchmarkArtifactStorePut(b *testing.B) {
	artifacttest.BenchPut(b, sqlite.NewArtifactStore(openDB(b), artifact.Config{}))
}

func BenchmarkArtifactStoreGet(b *testing.B) {
	artifacttest.BenchGet(b, sqlite.NewArtifactStore(openDB(b), artifact.Config{}))
}
