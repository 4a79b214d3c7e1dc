// Package store holds what the durable stores share: the sentinel errors
// every implementation wraps, so callers test failures with errors.Is
// whichever backend they run on.
//
// The implementations live in sub-packages, one per backend:
// store/sqlite (an embedded file, the default for one process) and
// store/postgres (a server that several worker processes share). Each
// keeps one schema per concern (artifacts, effects, sessions), created
// and migrated by its own embedded migrations, so a deployment can keep
// one concern in SQLite and another in PostgreSQL.
package store
