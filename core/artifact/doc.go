// Package artifact provides content-addressed storage for the binary
// outputs of tools (images, audio, documents), so that conversations and
// checkpoints carry small references instead of the bytes.
//
// An artifact is addressed by "sha256:" + hex(sha256(media type ‖ 0x00 ‖
// bytes)): the media type is part of the address, so the same bytes stored
// as two types are two artifacts. A [Write] is validated when it is built
// ([NewWrite]): the idempotency key, the media type (with a magic-byte check
// for the common image, audio and PDF types), the name and the expiry. A
// [Store] keeps artifacts per [Scope] (a tenant, a user, a session) and
// never lets one scope read, list, delete or purge another's. [Ref] is the
// reference a store returns; [Store.Get] checks the stored bytes against it
// again before returning them.
//
// Writes carry an idempotency key, as payment APIs do, so that a tool
// retried after a crash stores nothing twice: a key names one artifact per
// scope. Putting again with the same key and the same content returns the
// stored reference unchanged; the same key with other content, name or
// expiry is an idempotency conflict. A new key for content the scope
// already holds becomes an alias of it, unless the name or expiry differ
// (a metadata conflict): an artifact's metadata never changes after it is
// stored.
//
// [MemoryStore] is the in-process implementation for tests and single
// runs; store/sqlite and store/postgres keep artifacts durably, and all
// three pass the conformance suite in package artifacttest. The decisions
// every backend shares (replay, alias, verification, argument checks) are
// functions of this package, so backends only find rows.
//
// Failures match one of the package's sentinel errors with [errors.Is],
// and [KindOf] gives each its stable slug.
//
// Concurrency: every Store in this module is safe for concurrent use by
// many goroutines (and, for the durable stores, by many processes); racing
// puts of one key or one content settle on one artifact, and every racer
// gets either that artifact's reference or a conflict. [Write], [Ref] and
// [Scope] are values, safe to share once built; [Resolver] is safe for
// concurrent use when its Reader is.
package artifact
