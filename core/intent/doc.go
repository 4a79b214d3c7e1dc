// Package intent provides journaled tool intents: durable work a tool
// declares instead of doing, realised exactly once after the tool's
// attempt is committed, even across crashes and redrives.
//
// It is related to the transactional outbox: a tool attempt ends [Done]
// with its result and an [Intents] batch (start a process, signal one,
// cancel one, emit a process event, emit a trigger), or [Pending] with a
// completion and never with intents (the types make that impossible).
// A [Realiser] commits the final attempt to a [Journal] first, then
// admits its intents all or nothing ([Admit]: protocol version, count,
// per-kind and canonical-byte budgets, session match) and drains them in
// source order, each under a replay key derived from the session, the
// execution scope, the tool call id and the intent's index
// ([DeriveIdentity]). Every command outcome is recorded under its replay
// key before it is reported, so a redrive after a crash replays recorded
// outcomes byte for byte and never re-reads live state; the [Commands]
// that execute intents deduplicate on the same key, which closes the
// window between a command and the record of its outcome.
//
// [Local] is a minimal process runtime kept in a Journal: the process id
// of a started process is its intent's replay key, and signals, events
// and cancellations are journaled per process. A started process carries
// a parent-end policy ([ParentEndCancel] by default, or
// [ParentEndAbandon]); [Realiser.SettleParentEnd] executes those actions
// when the owning scope ends, once, and is safe to redrive.
//
// Hosts outside a tool call submit intents through an [Ingress]
// ([Realiser.ToolIntents]), which binds each identity to one intent and
// refuses foreign keys with typed errors.
//
// [MemoryJournal] keeps a journal in memory; store/sqlite and
// store/postgres keep it durably. Package intenttest checks a Journal.
//
// Concurrency: every type here is safe for concurrent use once
// configured, except that a Realiser's fields must not change while it is
// in use.
package intent
