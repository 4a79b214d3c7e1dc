package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/artifact/artifacttest"
	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
)

func openDB(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// tamperable lets the conformance suite corrupt rows behind the store.
type tamperable struct {
	*postgres.ArtifactStore
	db *postgres.DB
}

func (s tamperable) Tamper(ctx context.Context, r artifact.Ref, data []byte) error {
	tag, err := s.db.Pool().Exec(ctx, `UPDATE starweaver_artifacts SET media_type = $1, size_bytes = $2, sha256 = $3,
		name = $4, bytes = $5, created_at_ms = $6, expires_at_ms = $7 WHERE scope = $8 AND artifact_id = $9`,
		r.MediaType, r.Size, r.SHA256, r.Name, data, r.CreatedAtUnixMS, r.ExpiresAtUnixMS, r.Scope.String(), r.ID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("tamper: %d rows", tag.RowsAffected())
	}
	return nil
}

func TestArtifactStoreConformance(t *testing.T) {
	pgtest.DSN(t) // skip the whole suite at once without a server
	artifacttest.Run(t, func(t *testing.T, cfg artifact.Config) artifact.Store {
		db := openDB(t, pgtest.DSN(t))
		return tamperable{postgres.NewArtifactStore(db, cfg), db}
	})
}

func listIDs(t *testing.T, s artifact.Store, sc artifact.Scope) []string {
	t.Helper()
	p, err := s.List(context.Background(), sc, "", artifact.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range p.Items {
		ids = append(ids, r.ID)
	}
	return ids
}

// Two workers (two pools on one database) racing to put settle on one
// artifact per key and content, and each gets its reference or the
// conflict its write deserves. It holds too when the server's default
// isolation is stricter than READ COMMITTED.
func TestArtifactPutRaceBetweenWorkers(t *testing.T) {
	for _, isolation := range []string{"read committed", "repeatable read", "serializable"} {
		t.Run(isolation, func(t *testing.T) {
			dsn := withIsolation(pgtest.DSN(t), isolation)
			artifacttest.RunConcurrent(t, postgres.NewArtifactStore(openDB(t, dsn), artifact.Config{}), postgres.NewArtifactStore(openDB(t, dsn), artifact.Config{}))
		})
	}
}

// withIsolation sets the default isolation of the DSN's sessions.
func withIsolation(dsn, isolation string) string {
	if strings.Contains(dsn, "://") {
		return dsn + "&default_transaction_isolation=" + url.PathEscape(isolation)
	}
	return dsn + " default_transaction_isolation='" + isolation + "'"
}

// An artifact deleted between a put's insert and its key insert fails the
// put with a conflict to retry, and leaves nothing stored. (A trigger
// plays the deleting worker.)
func TestArtifactPutLosesToConcurrentDelete(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, pgtest.DSN(t))
	if _, err := db.Pool().Exec(ctx, `
		CREATE FUNCTION steal_artifact() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			DELETE FROM starweaver_artifacts WHERE scope = NEW.scope AND artifact_id = NEW.artifact_id;
			RETURN NEW;
		END $$;
		CREATE TRIGGER steal_artifact BEFORE INSERT ON starweaver_artifact_idempotency
			FOR EACH ROW EXECUTE FUNCTION steal_artifact();`); err != nil {
		t.Fatal(err)
	}
	s := postgres.NewArtifactStore(db, artifact.Config{})
	sc, _ := artifact.ParseScope("s")
	w, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("x"))
	_, err := s.Put(ctx, w)
	if !errors.Is(err, store.ErrConflict) || artifact.KindOf(err) != artifact.KindConflict {
		t.Fatalf("err = %v, want store.ErrConflict", err)
	}
	if ids := listIDs(t, s, sc); len(ids) != 0 {
		t.Fatalf("stored %v, want nothing", ids)
	}
}

func TestArtifactErrorsHideTheDSNAndData(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	artifacttest.RunUnavailable(t, postgres.NewArtifactStore(db, artifact.Config{}), db.Close, u.Host, u.User.String()+"@")
}

// Workers purging one scope together purge it all, without errors or
// deadlocks, each artifact counted once.
func TestArtifactPurgeByWorkersTogether(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	stores := []*postgres.ArtifactStore{
		postgres.NewArtifactStore(openDB(t, dsn), artifact.Config{}),
		postgres.NewArtifactStore(openDB(t, dsn), artifact.Config{}),
	}
	sc, _ := artifact.ParseScope("s")
	const total = 200
	for i := range total {
		w, _ := artifact.NewWrite(sc, fmt.Sprint("k", i), "text/plain", fmt.Appendf(nil, "content %d", i))
		w, _ = w.WithExpiresAt(int64(i))
		if _, err := stores[0].Put(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	purged := 0
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, err := stores[i%2].PurgeExpired(ctx, sc, total, 10)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				purged += n
				mu.Unlock()
				if n == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	if purged != total {
		t.Fatalf("purged %d in all, want %d", purged, total)
	}
	if ids := listIDs(t, stores[1], sc); len(ids) != 0 {
		t.Fatalf("%d artifacts left", len(ids))
	}
}
