package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"

	"github.com/starweaver-go/starweaver/core/store"
	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"
)

// migrations holds one directory per concern, each with files named
// NNN_what.sql applied in order once per database.
//
//go:embed migrations
var migrations embed.FS

// DB is an open SQLite database with every concern's tables migrated.
type DB struct {
	// write has one connection: SQLite allows one writer at a time, and
	// queueing writers here instead of in SQLite's busy handler keeps
	// write latency flat under load. read serves queries in parallel
	// (WAL lets readers run beside the writer).
	write *sql.DB
	read  *sql.DB
}

// Open opens (creating if needed) the database file at path and applies
// the migrations of every concern. ":memory:" opens a private in-memory
// database (one connection, for tests).
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite: open: empty path")
	}
	if path == ":memory:" {
		db, err := sql.Open("sqlite", "file::memory:?"+pragmas().Encode())
		if err != nil {
			return nil, fmt.Errorf("sqlite: open: %w", errors.Join(store.ErrUnavailable, err))
		}
		db.SetMaxOpenConns(1)
		d := &DB{write: db, read: db}
		return d, d.init(ctx)
	}
	w, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, errors.Join(store.ErrUnavailable, err))
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, errors.Join(store.ErrUnavailable, err))
	}
	r.SetMaxOpenConns(4)
	d := &DB{write: w, read: r}
	return d, d.init(ctx)
}

func pragmas() url.Values {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	// NORMAL in WAL mode: a commit survives a process crash; only a power
	// loss can undo the last transactions, never corrupt the file.
	q.Add("_pragma", "synchronous(NORMAL)")
	return q
}

func dsn(path string, write bool) string {
	q := pragmas()
	if write {
		// BEGIN IMMEDIATE: a transaction takes the write lock up front, so
		// a read-then-write never fails half way with SQLITE_BUSY.
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return "file:" + path + "?" + q.Encode()
}

func (d *DB) init(ctx context.Context) error {
	if err := d.migrate(ctx); err != nil {
		d.Close()
		return err
	}
	return nil
}

// Writer returns the single-connection pool for statements that write.
// Stores of this module use it; other code should not.
func (d *DB) Writer() *sql.DB { return d.write }

// Reader returns the pool for read-only queries.
func (d *DB) Reader() *sql.DB { return d.read }

// Close closes the database.
func (d *DB) Close() error {
	err := d.write.Close()
	if d.read != d.write {
		err = errors.Join(err, d.read.Close())
	}
	return err
}

// migrate applies, in one transaction per concern, every migration file
// not yet recorded in starweaver_migrations.
func (d *DB) migrate(ctx context.Context) error {
	if _, err := d.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS starweaver_migrations (
		concern TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (concern, version))`); err != nil {
		return fmt.Errorf("sqlite: migrate: %w", errors.Join(store.ErrUnavailable, err))
	}
	concerns, err := store.Migrations(migrations)
	if err != nil {
		return err
	}
	for _, c := range concerns {
		if err := d.apply(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func (d *DB) apply(ctx context.Context, c store.Concern) error {
	tx, err := d.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: migrate %s: %w", c.Name, errors.Join(store.ErrUnavailable, err))
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	for _, m := range c.Steps {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM starweaver_migrations WHERE concern = ? AND version = ?`, c.Name, m.Version).Scan(&n); err != nil {
			return fmt.Errorf("sqlite: migrate %s: %w", c.Name, errors.Join(store.ErrUnavailable, err))
		}
		if n > 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("sqlite: migrate %s %03d: %w", c.Name, m.Version, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO starweaver_migrations (concern, version) VALUES (?, ?)`, c.Name, m.Version); err != nil {
			return fmt.Errorf("sqlite: migrate %s: %w", c.Name, errors.Join(store.ErrUnavailable, err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: migrate %s: %w", c.Name, errors.Join(store.ErrUnavailable, err))
	}
	return nil
}
