package tool

import (
	"context"
	"encoding/json"
)

// Starter is implemented by tools that begin a call without blocking and
// report its outcome later, such as tools answered by another process. Start
// must call done exactly once, from any goroutine, and promptly once ctx
// ends. A parallel batch starts these calls from its own goroutine and
// collects their outcomes as they arrive, instead of parking a goroutine
// (and growing its stack) for every call; Execute starts them too, and
// waits.
type Starter interface {
	Start(ctx context.Context, tc *Context, args json.RawMessage, done func(Result, error))
}

// startable reports whether calls to e are started: the tool is a Starter
// and no after-hooks must run (they are user code, and done may run on the
// goroutine that delivers every completion).
func (r *Registry) startable(e *entry) bool {
	_, ok := e.Tool.(Starter)
	return ok && len(r.hooks) == 0 && len(e.cfg.Hooks) == 0
}
