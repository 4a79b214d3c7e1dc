package tool

import (
	"context"
	"encoding/json"
)

// Starter is implemented by tools that begin a call without blocking and
// report its outcome later, such as tools answered by another process. Start
// must call done exactly once, from any goroutine, and promptly once ctx
// ends, and must not use tc once it called done (after-hooks may change
// it). done may run user code (after-hooks, the next attempt), so it must
// not be called with a lock held. A parallel batch starts these calls from its own goroutine and
// collects their outcomes as they arrive, instead of parking a goroutine
// (and growing its stack) for every call; Execute starts them too, and
// waits.
type Starter interface {
	Start(ctx context.Context, tc *Context, args json.RawMessage, done func(Result, error))
}

// startable reports whether calls to e are started: the tool is a
// Starter. Its hooks then run as Hook says, so that no goroutine is held
// while the tool, or a hook answered elsewhere, runs.
func (r *Registry) startable(e *entry) bool {
	_, ok := e.Tool.(Starter)
	return ok
}

// starts reports whether a call to e is started from the goroutine that
// launches it, without a goroutine of its own: it is started and not
// journaled (journal writes block).
func (r *Registry) starts(e *entry) bool { return r.startable(e) && !r.journals(e) }

// hooked reports whether preparing a call to e runs user code: hooks or
// argument validators.
func (r *Registry) hooked(e *entry) bool {
	return len(r.hooks) > 0 || len(e.cfg.Hooks) > 0 || len(e.cfg.Validators) > 0
}
