package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/starweaver-go/starweaver/core/store"
	msqlite "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"
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

	// ckpt, when set, checkpoints the WAL in the background (see
	// checkpointer): commits signal kick every checkpointEvery commits.
	ckpt    *sql.DB
	commits atomic.Uint64
	kick    chan struct{}
	done    chan struct{}
	stopped sync.WaitGroup
	closing sync.Once
	// checkpointed, when set (by tests), is called after each background
	// checkpoint with its error.
	checkpointed func(error)

	// wal is the WAL this DB writes (nil in memory); see files.go.
	wal *walFile
}

// Checkpoints. SQLite's default is to copy the WAL back into the database
// (and fsync both) in whichever commit makes the WAL pass 1000 pages: on a
// slow disk that commit pays milliseconds, and on average every commit a
// large share of its cost (measured: about half of a journaled call's
// 150 µs). Instead, a goroutine of the DB runs a PASSIVE checkpoint on a
// connection of its own every checkpointEvery commits; PASSIVE never
// blocks writers or readers, and the WAL restarts from its beginning once
// a checkpoint caught up. The writer keeps an automatic checkpoint at
// safetyCheckpointPages, should the background one fall behind (a reader
// holding an old snapshot, a driver without commit hooks).
const (
	checkpointEvery       = 256
	safetyCheckpointPages = 10000
)

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
	useOFDLocks()
	d := &DB{kick: make(chan struct{}, 1), done: make(chan struct{})}
	base, err := msqlite.NewConnector(dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, errors.Join(store.ErrUnavailable, err))
	}
	w := sql.OpenDB(committer{Connector: base, db: d})
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, errors.Join(store.ErrUnavailable, err))
	}
	r.SetMaxOpenConns(4)
	c, err := sql.Open("sqlite", uri(path)+"?"+pragmas().Encode())
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, errors.Join(store.ErrUnavailable, err))
	}
	c.SetMaxOpenConns(1)
	d.write, d.read, d.ckpt = w, r, c
	d.stopped.Add(1)
	go d.checkpointer()
	if err := d.init(ctx); err != nil {
		return nil, err
	}
	if d.wal, err = watchFiles(path); err != nil {
		d.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, errors.Join(store.ErrUnavailable, err))
	}
	return d, nil
}

// committer opens the writer's connections with a commit hook that counts
// commits for the checkpointer, and moves the automatic checkpoint out of
// the way of commits (see checkpointEvery).
type committer struct {
	driver.Connector
	db *DB
}

// Connect returns the driver's own connection (so database/sql keeps
// every optional interface it implements), hooked.
func (c committer) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	hooked, ok := conn.(interface {
		RegisterCommitHook(msqlite.CommitHookFn)
	})
	exec, canExec := conn.(driver.ExecerContext)
	if !ok || !canExec {
		return conn, nil // SQLite checkpoints in commits, as by default
	}
	hooked.RegisterCommitHook(c.db.committed)
	if _, err := exec.ExecContext(ctx, fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", safetyCheckpointPages), nil); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// committed runs inside every commit of the writer: it must not block.
// A commit whose WAL is no longer the database's (see files.go) is turned
// into a rollback: it would go to a removed file.
func (d *DB) committed() int32 {
	if d.wal.check() != nil {
		return 1 // roll back; the statement's error is explained by explain
	}
	if d.commits.Add(1)%checkpointEvery == 0 {
		select {
		case d.kick <- struct{}{}:
		default: // a checkpoint is pending already
		}
	}
	return 0 // let the commit proceed
}

// checkpointer runs a PASSIVE checkpoint each time it is kicked, until the
// DB closes. A checkpoint that fails (another process checkpoints, a
// reader holds the WAL) is left to the next one, or to the writer's.
func (d *DB) checkpointer() {
	defer d.stopped.Done()
	for {
		select {
		case <-d.kick:
			_, err := d.ckpt.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
			if d.checkpointed != nil {
				d.checkpointed(err)
			}
		case <-d.done:
			return
		}
	}
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
	return uri(path) + "?" + q.Encode()
}

// uri is the "file:" URI of the file at path: SQLite decodes %HH escapes
// in it and ends the path at '?' or '#', so those three are escaped (a
// path with '#' opened the file named by what came before it).
func uri(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
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

// checkFiles fails (ErrFilesReplaced) when what the DB writes no longer
// reaches the database file; see files.go.
func (d *DB) checkFiles() error { return d.wal.check() }

// Close closes the database.
func (d *DB) Close() error {
	d.wal.close()
	if d.ckpt != nil {
		d.closing.Do(func() {
			close(d.done)
			d.stopped.Wait()
		})
		_ = d.ckpt.Close() // its last checkpoint is the writer's business
	}
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
