package bridge

import (
	"context"
	"slices"
)

// watch cancels the started items of one context when it ends: the host
// is told to cancel each, and each completes with the context's error.
// The calls of a parallel batch share their context, so a batch takes one
// context.AfterFunc instead of one per call.
type watch struct {
	ctx  context.Context
	n    int         // waiters on the watch, under the run's lock
	stop func() bool // of the AfterFunc
}

// watches are a run's watches by context, with the last one used kept
// apart: consecutive starts nearly always share it. The run's lock guards
// them.
type watches struct {
	last *watch
	by   map[context.Context]*watch
}

// add counts one more waiter on ctx's watch, made when there is none;
// nil for a context that cannot end.
func (ws *watches) add(r *hostRun, ctx context.Context) *watch {
	if ctx.Done() == nil {
		return nil
	}
	w := ws.last
	if w == nil || w.ctx != ctx {
		w = ws.by[ctx]
		if w == nil {
			w = &watch{ctx: ctx}
			if ws.by == nil {
				ws.by = map[context.Context]*watch{}
			}
			ws.by[ctx] = w
			// An ended context runs the function on a goroutine of its
			// own, which waits for the run's lock, held here.
			w.stop = context.AfterFunc(ctx, func() { r.ended(w) })
		}
		ws.last = w
	}
	w.n++
	return w
}

// done counts one waiter less on w (nil: none) and forgets w once none
// is left; it returns the function stopping its AfterFunc then, for the
// caller to call once the run's lock is released.
func (ws *watches) done(w *watch) func() bool {
	if w == nil {
		return nil
	}
	if w.n--; w.n > 0 {
		return nil
	}
	ws.forget(w)
	return w.stop
}

func (ws *watches) forget(w *watch) {
	if ws.by[w.ctx] == w {
		delete(ws.by, w.ctx)
	}
	if ws.last == w {
		ws.last = nil
	}
}

// ended cancels the items still awaited on w, whose context ended, in the
// order they were started.
func (r *hostRun) ended(w *watch) {
	r.mu.Lock()
	r.watches.forget(w)
	var tokens []int64
	var items []startedItem
	for token, wt := range r.waiters {
		if wt.watch == w {
			tokens = append(tokens, token)
		}
	}
	slices.Sort(tokens)
	for _, token := range tokens {
		items = append(items, r.waiters[token].item)
		delete(r.waiters, token)
	}
	w.n = 0
	r.mu.Unlock()
	err := w.ctx.Err()
	for i, token := range tokens {
		r.post(cancelItem(token))
		items[i].complete(nil, err)
	}
}
