// Package sqlite keeps durable state in one SQLite file: the embedded
// default for a single process (and for several processes on one machine,
// which SQLite serialises).
//
// It uses modernc.org/sqlite, a pure-Go SQLite, so core/ keeps building
// with CGO_ENABLED=0 (only capi/ uses cgo). Databases are opened in WAL mode
// with foreign keys on and a busy timeout, and each concern (artifacts,
// effects, sessions) has its own tables and migrations, applied by Open.
//
// A DB is safe for concurrent use. Writes are serialised by one connection
// so that transactions never fail with SQLITE_BUSY inside one process.
package sqlite
