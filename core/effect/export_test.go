package effect

// OnEnqueue sets a hook called after each operation joins b's queue, so
// tests can wait for an event instead of sleeping.
func OnEnqueue(b *Batcher, f func()) { b.enqueued = f }

// Canonical's two paths, for the fuzz test that holds them equal.
var (
	IsCanonical  = isCanonical
	Canonicalize = canonicalize
)
