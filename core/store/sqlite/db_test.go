package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	for i := 0; i < 2; i++ {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		var mode string
		if err := db.Reader().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
		}
		var fk int
		if err := db.Writer().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign_keys = %d, %v; want 1", fk, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReaderCannotWrite(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Reader().ExecContext(ctx, "CREATE TABLE x (a)"); err == nil {
		t.Fatal("the read pool accepted a write")
	}
}

func TestOpenMemory(t *testing.T) {
	db, err := sqlite.Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Reader() != db.Writer() {
		t.Fatal("an in-memory database must use one pool")
	}
}

func TestOpenRejectsEmptyPath(t *testing.T) {
	if _, err := sqlite.Open(context.Background(), ""); err == nil {
		t.Fatal("want an error")
	}
}

// A save whose commit went to a WAL that is no longer the database's (it
// was removed under the store, as another SQLite library in the process
// may do) fails, and says why, instead of reporting success.
func TestASaveToARemovedWALFails(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := sqlite.NewSessionStore(db)
	rev, err := st.Save(ctx, "s", []byte("one"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + "-wal"); err != nil {
		t.Fatal(err)
	}
	_, err = st.Save(ctx, "s", []byte("two"), rev)
	if !errors.Is(err, sqlite.ErrFilesReplaced) || !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("save after the WAL was removed: err = %v, want ErrFilesReplaced", err)
	}
	if !strings.Contains(err.Error(), "close the store and open it again") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
}

// The file opened is the one at the path, whatever characters a URI
// treats specially ('?', '#', '%') it holds.
func TestOpenUsesTheExactPath(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a#b?c%41d.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlite.NewSessionStore(db).Save(ctx, "s", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Contains(names, filepath.Base(path)) || !slices.Contains(names, filepath.Base(path)+"-wal") || len(names) != 3 {
		t.Fatalf("files %q, want the database at %q with its -wal and -shm", names, filepath.Base(path))
	}
}
