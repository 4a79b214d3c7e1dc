package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/starweaver-go/starweaver/core/store"
)

// migrations holds one directory per concern, each with files named
// NNN_what.sql applied in order once per database.
//
//go:embed migrations
var migrations embed.FS

// migrateLock is the advisory lock key that serialises migrations of
// workers starting together ("starweav" in ASCII).
const migrateLock int64 = 0x7374_6172_7765_6176

// DB is a connection pool to a PostgreSQL database with every concern's
// tables migrated.
type DB struct {
	pool *pgxpool.Pool
}

// Open connects to the database at dsn (a libpq URL or key=value string)
// and applies the migrations of every concern. Errors never repeat the
// DSN, which may hold a password.
func Open(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's parse errors can quote the DSN: say only what failed.
		return nil, fmt.Errorf("postgres: open: the connection string is invalid: %w", store.ErrUnavailable)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", errors.Join(store.ErrUnavailable, redact(err)))
	}
	d := &DB{pool: pool}
	if err := d.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return d, nil
}

// Pool returns the connection pool. Stores of this module use it.
func (d *DB) Pool() *pgxpool.Pool { return d.pool }

// Close closes every connection of the pool.
func (d *DB) Close() { d.pool.Close() }

// migrate applies, in one transaction holding the migration lock, every
// migration file not yet recorded in starweaver_migrations.
func (d *DB) migrate(ctx context.Context) error {
	concerns, err := store.Migrations(migrations)
	if err != nil {
		return err
	}
	var inner error // a failure inside the transaction, already wrapped
	err = pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		inner = d.migrateTx(ctx, tx, concerns)
		return inner
	})
	if err != nil && inner == nil {
		// Connecting, beginning or committing failed.
		return fmt.Errorf("postgres: migrate: %w", errors.Join(store.ErrUnavailable, redact(err)))
	}
	return err
}

func (d *DB) migrateTx(ctx context.Context, tx pgx.Tx, concerns []store.Concern) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
		return fmt.Errorf("postgres: migrate: %w", errors.Join(store.ErrUnavailable, redact(err)))
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS starweaver_migrations (
		concern TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (concern, version))`); err != nil {
		return fmt.Errorf("postgres: migrate: %w", errors.Join(store.ErrUnavailable, redact(err)))
	}
	for _, c := range concerns {
		for _, m := range c.Steps {
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM starweaver_migrations WHERE concern = $1 AND version = $2)`, c.Name, m.Version).Scan(&done); err != nil {
				return fmt.Errorf("postgres: migrate %s: %w", c.Name, errors.Join(store.ErrUnavailable, redact(err)))
			}
			if done {
				continue
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("postgres: migrate %s %03d: %w", c.Name, m.Version, redact(err))
			}
			if _, err := tx.Exec(ctx, `INSERT INTO starweaver_migrations (concern, version) VALUES ($1, $2)`, c.Name, m.Version); err != nil {
				return fmt.Errorf("postgres: migrate %s: %w", c.Name, errors.Join(store.ErrUnavailable, redact(err)))
			}
		}
	}
	return nil
}
