package tool

import (
	"context"
	"slices"
	"sync"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// BatchOptions control how one model response's calls are scheduled.
type BatchOptions struct {
	// Sequential forces model-order execution (the agent's policy).
	Sequential bool
	// MaxConcurrency caps concurrent calls; zero means no cap.
	MaxConcurrency int
	// Retries holds the model-correction count of each tool name so far in
	// the run; it becomes the base of Context.Retry.
	Retries map[string]int
	// Bases, when set, holds one base context per call, in model order,
	// used instead of ExecuteBatch's base (a nil entry keeps it): a resumed
	// batch attaches each call's approval this way.
	Bases []*Context
	// CallContext, when set, derives each call's context from the batch's
	// (a tracer puts the call's span in it). ExecuteBatch calls it on its
	// own goroutine, in model order, just before the call starts (before
	// any call starts, when calls wait for a resource key or a cap).
	CallContext func(ctx context.Context, c Call) context.Context
}

// Why a batch runs sequentially; "" means in parallel.
const (
	SeqPolicy         = "policy"
	SeqSequentialTool = "sequential_tool"
	SeqRepeatedName   = "repeated_name"
	SeqMixedProfiles  = "mixed_profiles"
	SeqContextCapable = "context_capability"
)

// SequentialReason reports why calls must run one at a time in model
// order, or "" when they may run in parallel: the policy says so, a called
// tool is sequential, a name repeats, Legacy tools are mixed with Filtered
// or Strict ones, or a tool asks for a mutable context capability.
func (r *Registry) SequentialReason(calls []Call, policySequential bool) string {
	if policySequential {
		return SeqPolicy
	}
	if len(calls) < 2 {
		return ""
	}
	s := r.NewSequentialCheck()
	for _, c := range calls {
		if s.Add(c); s.settled {
			return s.reason // a later call cannot change it
		}
	}
	if s.legacy && s.narrowed {
		return SeqMixedProfiles
	}
	return ""
}

// SequentialCheck decides SequentialReason over a batch that grows one call
// at a time, in constant time per call: for a caller that starts a
// response's calls while the response streams, which would otherwise
// re-check every earlier call at each new one.
type SequentialCheck struct {
	r *Registry
	n int
	// Names seen: compared pairwise while few, then kept in a set.
	few              []string
	names            map[string]struct{}
	legacy, narrowed bool
	reason           string // the first reason found call by call
	settled          bool   // reason is set: no later call changes it
}

// NewSequentialCheck starts a check of an empty batch.
func (r *Registry) NewSequentialCheck() *SequentialCheck { return &SequentialCheck{r: r} }

// Add adds c to the batch and reports SequentialReason of the calls added
// so far (without the agent's policy): "" while they may run in parallel.
func (s *SequentialCheck) Add(c Call) string {
	s.n++
	if !s.settled {
		if s.reason = s.reasonOf(c); s.reason != "" {
			s.settled = true
		}
	}
	switch {
	case s.n < 2:
		return ""
	case s.settled:
		return s.reason
	case s.legacy && s.narrowed:
		return SeqMixedProfiles
	}
	return ""
}

// reasonOf checks c against the calls before it and records its profile.
func (s *SequentialCheck) reasonOf(c Call) string {
	r := s.r
	if s.seen(c.Name) && !r.repeatsApart(c.Name) {
		return SeqRepeatedName
	}
	e, ok := r.entries[c.Name]
	if !ok {
		s.legacy = true
		return ""
	}
	if e.def.IsSequential() {
		return SeqSequentialTool
	}
	if len(e.cfg.Capabilities) > 0 || len(e.deps.ContextCapabilities) > 0 {
		return SeqContextCapable
	}
	if e.deps.Profile == ProfileLegacy {
		s.legacy = true
	} else {
		s.narrowed = true
	}
	return ""
}

// seen reports whether name was added before, and adds it.
func (s *SequentialCheck) seen(name string) bool {
	if s.names == nil {
		if slices.Contains(s.few, name) {
			return true
		}
		if len(s.few) < 16 {
			s.few = append(s.few, name)
			return false
		}
		s.names = make(map[string]struct{}, 64)
		for _, n := range s.few {
			s.names[n] = struct{}{}
		}
	}
	if _, dup := s.names[name]; dup {
		return true
	}
	s.names[name] = struct{}{}
	return false
}

// SoloSequentialReason reports why a call of the named tool must run in
// model order whatever it is batched with (a sequential tool, a context
// capability), or "".
func (r *Registry) SoloSequentialReason(name string) string {
	e, ok := r.entries[name]
	switch {
	case !ok:
		return ""
	case e.def.IsSequential():
		return SeqSequentialTool
	case len(e.cfg.Capabilities) > 0 || len(e.deps.ContextCapabilities) > 0:
		return SeqContextCapable
	}
	return ""
}

// Repeatable reports whether calls of the named tool may run in parallel
// with each other in one batch: pure and read-only calls change nothing,
// so their order cannot matter.
func (r *Registry) Repeatable(name string) bool {
	e, ok := r.entries[name]
	return ok && effectclass.ParallelSafe(r.effectOf(e))
}

// repeatsApart reports whether a repeated name leaves a batch parallel:
// the tool is Repeatable, or its calls are ordered by resource key.
func (r *Registry) repeatsApart(name string) bool {
	return r.Repeatable(name) || r.ResourceKeyed(name)
}

// ExecuteBatch executes one model response's calls and returns their
// Returns in model order. Calls run in parallel unless SequentialReason
// says otherwise; sequential calls run in model order, each after the
// previous one finished.
//
// In parallel, this goroutine prepares and starts every Starter call
// itself and waits for the outcomes, without a goroutine per call, hooks
// included (see Hook: a hook answered elsewhere holds no goroutine while
// it waits, a Go hook runs on a goroutine of its phase); other calls each
// get a goroutine (their tool is user code that blocks), and so do
// journaled calls (their journal writes block).
//
// Calls ordered by resource key (see ResourceKey) or capped (the batch's
// MaxConcurrency, a tool's Limiter) are admitted as they may run: in model
// order, a Starter is started by whichever goroutine admits it (this one,
// or the one ending the call it waited for), still without a goroutine of
// its own, and any other call gets its goroutine only once admitted. A
// Starter's call whose preparation runs hooks or validators is admitted
// before it is prepared, as a blocking call is, so that its before-hooks
// run holding its slots.
func (r *Registry) ExecuteBatch(ctx context.Context, base *Context, calls []Call, opts BatchOptions) []Return {
	if ctx == nil {
		ctx = context.Background()
	}
	out := make([]Return, len(calls))
	contextFor := func(i int, c Call) *Context {
		b := base
		if i < len(opts.Bases) && opts.Bases[i] != nil {
			b = opts.Bases[i]
		}
		if len(opts.Retries) == 0 {
			return b
		}
		tc := &Context{}
		if b != nil {
			*tc = *b
		}
		tc.Retry = opts.Retries[c.Name]
		return tc
	}
	callCtx := func(c Call) context.Context {
		if opts.CallContext == nil {
			return ctx
		}
		return opts.CallContext(ctx, c)
	}
	if r.SequentialReason(calls, opts.Sequential) != "" || len(calls) == 1 {
		for i, c := range calls {
			out[i] = r.Execute(callCtx(c), contextFor(i, c), c)
		}
		return out
	}
	if order := r.resourceOrder(ctx, calls); order != nil || opts.MaxConcurrency > 0 || r.limited(calls) {
		b := &batchRun{r: r, calls: calls, out: out, runs: make([]callRun, len(calls)), order: order, contextFor: contextFor}
		if opts.MaxConcurrency > 0 {
			b.limit = &Limiter{n: opts.MaxConcurrency}
		}
		if opts.CallContext != nil {
			// Every call's context is derived in model order before any
			// starts, including those that wait for their resource key.
			b.ctxs = make([]context.Context, len(calls))
			for i, c := range calls {
				b.ctxs[i] = callCtx(c)
			}
		}
		b.run(ctx)
		return out
	}
	var wg sync.WaitGroup
	wg.Add(len(calls))
	for i, c := range calls {
		r.StartCall(callCtx(c), contextFor(i, c), c, &out[i], &wg)
	}
	wg.Wait()
	return out
}

// StartCall runs one call of a parallel batch as ExecuteBatch runs it,
// writing its Return to dst and calling wg.Done once it ended (the caller
// has added it to wg): a Starter's call (not journaled) is started from
// this goroutine, without a goroutine of its own (its hooks run as Hook
// says), and any other call runs on a goroutine of its own. For callers
// that start calls one at a time, as a response streams.
func (r *Registry) StartCall(ctx context.Context, base *Context, call Call, dst *Return, wg *sync.WaitGroup) {
	if e, ok := r.entries[call.Name]; ok && r.starts(e) {
		r.startInto(ctx, base, call, dst, wg, false)
		return
	}
	go r.startInto(ctx, base, call, dst, wg, true)
}

// ConcurrencyLimited reports whether calls of the named tool take a slot of
// a Limiter, which a batch grants in model order.
func (r *Registry) ConcurrencyLimited(name string) bool {
	e, ok := r.entries[name]
	return ok && e.limiterOf() != nil
}

// limited reports whether a call's tool has a Limiter.
func (r *Registry) limited(calls []Call) bool {
	for _, c := range calls {
		if e, ok := r.entries[c.Name]; ok && e.limiterOf() != nil {
			return true
		}
	}
	return false
}

// batchRun is a parallel batch whose calls are admitted as they may run:
// a call waits for the earlier calls on its resource key (keyOrder) and
// for a slot under the batch's cap (limit). Every call is started as the
// plain parallel path starts it, from whichever goroutine admits it (the
// batch's, or the one that ended the call it waited for): a Starter
// without a goroutine, any other call on its own.
type batchRun struct {
	r          *Registry
	calls      []Call
	out        []Return
	runs       []callRun
	order      *keyOrder
	limit      *Limiter
	ctxs       []context.Context
	ctx        context.Context
	contextFor func(int, Call) *Context
	wg         sync.WaitGroup
}

func (b *batchRun) run(ctx context.Context) {
	b.ctx = ctx
	b.wg.Add(len(b.calls))
	if b.order == nil {
		for i := range b.calls {
			b.launch(i)
		}
	} else {
		// Each count holds one more, dropped here in model order: whoever
		// takes a count to zero launches the call, exactly once, even
		// when an earlier call ends while this loop runs.
		for i := range b.order.waits {
			b.order.waits[i].Add(1)
		}
		for i := range b.calls {
			if b.order.waits[i].Add(-1) == 0 {
				b.launch(i)
			}
		}
	}
	b.wg.Wait()
}

// launch prepares and starts call i.
func (b *batchRun) launch(i int) {
	c, call := &b.runs[i], b.calls[i]
	c.batch, c.index, c.batchLimit = b, i, b.limit
	ctx := b.ctx
	if b.ctxs != nil {
		ctx = b.ctxs[i]
	}
	base := b.contextFor(i, call)
	e, ok := b.r.entries[call.Name]
	limited := ok && (b.limit != nil || e.limiterOf() != nil)
	if ok && b.r.starts(e) && !(limited && b.r.hooked(e)) {
		b.r.startRun(c, ctx, base, call, &b.out[i], &b.wg, false)
		return
	}
	if limited {
		// A call that blocks, or whose preparation runs hooks, takes its
		// slots here, in model order, and is prepared once it holds them
		// (a call that blocks on a goroutine it gets then).
		c.r, c.e, c.ctx, c.call, c.base, c.unprepared = b.r, e, ctx, call, base, true
		c.dst, c.wg, c.toolLimit, c.wait.g = &b.out[i], &b.wg, e.limiterOf(), c
		c.admit()
		return
	}
	go b.r.startRun(c, ctx, base, call, &b.out[i], &b.wg, true)
}

// finished launches the calls that waited for call i's end on their
// resource key and wait for nothing else now, in model order.
func (b *batchRun) finished(i int) {
	if b.order == nil {
		return
	}
	for _, j := range b.order.next[i] {
		if b.order.waits[j].Add(-1) == 0 {
			b.launch(int(j))
		}
	}
}
