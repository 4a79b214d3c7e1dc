// Package sessionstoretest checks that agents share a [session.Store]
// correctly: RunDurable checks that agents sharing the store through two
// handles (two workers) continue each other's sessions and resume a
// waiting run at most once. The store's own contract is checked by
// core/session/sessiontest.
//
// Every store of the module runs both: the memory store in core/agent, the
// SQLite and PostgreSQL stores in their packages' tests.
package sessionstoretest
