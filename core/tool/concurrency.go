package tool

import (
	"context"
	"fmt"
	"sync"
)

// A Limiter caps how many calls run at once: every call of every tool
// holding the same Limiter counts against it, in every batch and every
// run that reaches the tool, while calls of other tools go on. A tool's
// Limiter ([Function.WithMaxConcurrency], Config.Concurrency) lives with
// the tool value, so the concurrent runs of one agent share it; a
// toolset's default ([Limiters]) holds one Limiter per tool name.
//
// Calls wait for a slot in the order they asked for one. A call holds its
// slot from its first attempt to its Return, retries included, and not
// while it waits for earlier calls on its resource key (see ResourceKey)
// or for its arguments to be prepared; a call that runs hooks or argument
// validators takes its slot before them, so a slow before-hook counts
// against the limit. A waiting call whose run is cancelled stops waiting
// and returns cancelled.
//
// A call holding the only slot of its tool that dispatches a call of the
// same tool (Context.Dispatch, DispatchBatch) waits for itself: the limit
// counts the child too.
//
// A Limiter is safe for concurrent use; create it with NewLimiter.
type Limiter struct {
	n      int
	mu     sync.Mutex
	active int
	// head and tail are the waiters in the order they asked.
	head, tail *limitWaiter
}

// limitWaiter is one call waiting for a slot. It is embedded in the
// call's state (callRun), so that waiting allocates nothing.
type limitWaiter struct {
	next, prev *limitWaiter
	queued     bool
	// g is told, on the goroutine that released the slot, that it holds
	// it now.
	g grantee
	// stop ends the watch on the waiter's context, when one was set.
	stop func() bool
}

// grantee is what waits in a limitWaiter: a call (callRun), or a
// blocked Acquire.
type grantee interface{ granted() }

// chanGrant is the grantee of Acquire.
type chanGrant chan struct{}

func (c chanGrant) granted() { close(c) }

// CheckMaxConcurrency reports whether n is a valid concurrency limit: at
// least 1 (leaving a limit unset is how a tool runs without one).
func CheckMaxConcurrency(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: max_concurrency must be at least 1, got %d", ErrInvalidOption, n)
	}
	return nil
}

// NewLimiter returns a Limiter letting n calls run at once. It panics if n
// is below 1 (see CheckMaxConcurrency).
func NewLimiter(n int) *Limiter {
	if err := CheckMaxConcurrency(n); err != nil {
		panic("tool: NewLimiter: " + err.Error())
	}
	return &Limiter{n: n}
}

// Limit returns how many calls may run at once.
func (l *Limiter) Limit() int { return l.n }

// InFlight returns how many slots are held now.
func (l *Limiter) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.active
}

// TryAcquire takes a slot if one is free and no call waits for one, and
// reports whether it did.
func (l *Limiter) TryAcquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active < l.n && l.head == nil {
		l.active++
		return true
	}
	return false
}

// Acquire waits for a slot, in order, until ctx ends. On failure it
// returns ctx.Err() and leaves the Limiter unchanged.
func (l *Limiter) Acquire(ctx context.Context) error {
	if l.TryAcquire() {
		return nil
	}
	ch := make(chanGrant)
	w := &limitWaiter{g: ch}
	l.mu.Lock()
	if l.active < l.n && l.head == nil {
		l.active++
		l.mu.Unlock()
		return nil
	}
	l.push(w)
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		if l.remove(w) {
			return ctx.Err()
		}
		<-ch // granted meanwhile: hand the slot on
		l.Release()
		return ctx.Err()
	}
}

// Release gives a slot back, handing it to the longest waiter if any (its
// call starts on the caller's goroutine). It panics when no slot is held.
func (l *Limiter) Release() {
	l.mu.Lock()
	if l.active <= 0 {
		l.mu.Unlock()
		panic("tool: Limiter released more than held")
	}
	w := l.head
	if w == nil {
		l.active--
		l.mu.Unlock()
		return
	}
	l.unlink(w) // the slot passes to w
	l.mu.Unlock()
	if w.stop != nil {
		w.stop()
	}
	w.g.granted()
}

// admit takes a slot for w at once and reports true, or queues w and
// reports false: w.g.granted then runs once a slot is handed to it. When ctx
// can end, a queued w is watched: cancelled runs cancelled() instead, on
// the goroutine that noticed.
func (l *Limiter) admit(ctx context.Context, w *limitWaiter, cancelled func()) bool {
	l.mu.Lock()
	if l.active < l.n && l.head == nil {
		l.active++
		l.mu.Unlock()
		return true
	}
	w.stop = nil
	l.push(w)
	watch := ctx != nil && ctx.Done() != nil
	l.mu.Unlock()
	if watch {
		stop := context.AfterFunc(ctx, func() {
			if l.remove(w) {
				cancelled()
			}
		})
		l.mu.Lock()
		if w.queued {
			w.stop = stop
			l.mu.Unlock()
		} else {
			l.mu.Unlock()
			stop() // already granted (or removed): the watch is not needed
		}
	}
	return false
}

// remove takes w out of the queue and reports whether it was still there.
func (l *Limiter) remove(w *limitWaiter) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !w.queued {
		return false
	}
	l.unlink(w)
	return true
}

func (l *Limiter) push(w *limitWaiter) {
	w.queued, w.next, w.prev = true, nil, l.tail
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
}

func (l *Limiter) unlink(w *limitWaiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.next, w.prev, w.queued = nil, nil, false
}

// Limiters is a toolset's concurrency default: one Limiter of the same
// limit per tool name, so that each of the toolset's tools is capped on
// its own. Like a Limiter it lives with the toolset value, which the runs
// of an agent share. It is safe for concurrent use; create it with
// NewLimiters.
type Limiters struct {
	n  int
	mu sync.Mutex
	m  map[string]*Limiter
}

// NewLimiters returns a table giving each tool name a Limiter of n. It
// panics if n is below 1 (see CheckMaxConcurrency).
func NewLimiters(n int) *Limiters {
	if err := CheckMaxConcurrency(n); err != nil {
		panic("tool: NewLimiters: " + err.Error())
	}
	return &Limiters{n: n, m: map[string]*Limiter{}}
}

// Limit returns the limit of each tool.
func (ls *Limiters) Limit() int { return ls.n }

// For returns the Limiter of the named tool, the same one on every call.
func (ls *Limiters) For(name string) *Limiter {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l, ok := ls.m[name]
	if !ok {
		l = &Limiter{n: ls.n}
		ls.m[name] = l
	}
	return l
}

// limiterOf is the Limiter of e's calls: its own, else its toolset's; nil
// when neither caps it.
func (e *entry) limiterOf() *Limiter {
	if e.cfg.Concurrency != nil {
		return e.cfg.Concurrency
	}
	return e.Concurrency
}

// MaxConcurrencyFor returns the concurrency limit of the named tool, 0
// when none caps it.
func (r *Registry) MaxConcurrencyFor(name string) int {
	if e, ok := r.entries[name]; ok {
		if l := e.limiterOf(); l != nil {
			return l.n
		}
	}
	return 0
}

// SetMaxConcurrency checks n, then gives c a Limiter of n and records n
// under [MetaMaxConcurrency] in md (which must not be nil). On failure c
// and md are unchanged.
func (c *Config) SetMaxConcurrency(md map[string]any, n int) error {
	if err := CheckMaxConcurrency(n); err != nil {
		return err
	}
	c.Concurrency = NewLimiter(n)
	md[MetaMaxConcurrency] = n
	return nil
}

// MetaMaxConcurrency is the definition metadata key recording a tool's
// concurrency limit.
const MetaMaxConcurrency = "max_concurrency"

// WithMaxConcurrency caps how many calls of the tool run at once, in every
// batch and run holding it (see Limiter), and records the limit in the
// metadata. A limit below 1 is reported by Err and at registration.
func (f *Function) WithMaxConcurrency(n int) *Function {
	f.fail(f.cfg.SetMaxConcurrency(f.meta(), n))
	return f
}

// WithLimiter makes the tool's calls count against l, which other tools
// may share (several tools of one rate-limited service, say); nil removes
// the cap.
func (f *Function) WithLimiter(l *Limiter) *Function {
	f.cfg.Concurrency = l
	return f
}
