// Package session holds the contract of a session store: the Store
// interface that keeps agent sessions' state by session id, its record,
// the adapter for ordinary functions and an in-memory implementation.
//
// A store's failures are the durable stores' sentinel errors in
// core/store: an unknown id wraps store.ErrNotFound and a lost
// compare-and-swap wraps store.ErrConflict. The errors of a session kept
// in a store (a session that changed elsewhere, a claimed resume) belong
// to the agent that runs it (core/agent).
//
// Implementations must pass the conformance suite in
// core/session/sessiontest. The SQLite and PostgreSQL stores live in
// core/store/sqlite and core/store/postgres; core/agent uses a Store
// through Builder.SessionStore.
package session
