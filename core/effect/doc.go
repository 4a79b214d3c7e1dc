// Package effect provides effect classes and a write-ahead effect
// journal: the runtime's way to run a tool call that changes the world at
// most once, even across crashes, retries and several worker processes.
//
// A tool declares its [Class] (pure, read-only, idempotent write,
// non-idempotent write, destructive, unknown). The class answers the
// scheduler's and the retry loop's questions: may this call run again
// when the outcome of an earlier run is unknown ([RetrySafe],
// [FailsClosed]), and may it run beside another call of the same tool
// ([ParallelSafe])?
//
// The journal is related to a database's write-ahead log: an [Executor]
// records an effect as started ([StateStarted]) in a [Store] before the
// handler runs, and its outcome ([StateCompleted] or [StateFailed])
// after; [Executor.Prepare] records an intent ([StatePrepared]) ahead of
// its start. An effect found completed is replayed instead of repeated;
// one found started may or may not have happened, and is run again only
// on proof ([Reconciler]) or, for retry-safe classes, under the
// [RecoveryRetrySafe] policy. Every change is a compare-and-swap on the
// record's revision, which decides races between workers.
//
// The tool runtime is the intended caller: per tool call it builds a
// [Request] (its [Key] from the call's position), calls
// [Executor.Execute] with a [Handler] that runs one attempt, and gets
// either a [Result] (fresh, or replayed from the journal) or an error to
// classify with [Slug] ([ErrAmbiguous], [ErrFailed],
// [ErrIdempotencyConflict], ...).
//
// A tool call's effect is identified by its idempotency [Key]: session,
// run, turn and the call's position in the turn, so that a re-driven turn
// finds the records of the calls it repeats.
//
// [MemoryStore] keeps records in memory; store/sqlite and store/postgres
// keep them durably. Stores that can commit many swaps in one transaction
// implement [BatchStore], and a [Batcher] group-commits the swaps of
// concurrent calls through it. Package effecttest checks a Store.
//
// Concurrency: every type here is safe for concurrent use once
// configured, except that an Executor's fields must not change while it
// is in use.
package effect
