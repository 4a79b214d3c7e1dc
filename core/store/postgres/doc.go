// Package postgres keeps durable state in a PostgreSQL server that several
// worker processes share, through github.com/jackc/pgx/v5's connection pool.
//
// Each concern (artifacts, effects, sessions) has its own tables and
// migrations, applied by Open under an advisory lock so that workers
// starting together migrate once. Error messages never include the DSN.
//
// A DB is safe for concurrent use by many goroutines and processes;
// compare-and-swap updates decide races between workers.
package postgres
