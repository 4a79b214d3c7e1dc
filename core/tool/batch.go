package tool

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/starweaver-go/starweaver/core/effect"
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
	// own goroutine, in model order, just before the call starts.
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
	var legacy, narrowed bool
	// Small batches compare names pairwise; large ones remember them.
	var seen map[string]struct{}
	if len(calls) > 16 {
		seen = make(map[string]struct{}, len(calls))
	}
	for i, c := range calls {
		if seen != nil {
			if _, dup := seen[c.Name]; dup && !r.Repeatable(c.Name) {
				return SeqRepeatedName
			}
			seen[c.Name] = struct{}{}
		} else {
			for _, prev := range calls[:i] {
				if prev.Name == c.Name && !r.Repeatable(c.Name) {
					return SeqRepeatedName
				}
			}
		}
		e, ok := r.entries[c.Name]
		if !ok {
			legacy = true
			continue
		}
		if e.def.IsSequential() {
			return SeqSequentialTool
		}
		if len(e.cfg.Capabilities) > 0 || len(e.deps.ContextCapabilities) > 0 {
			return SeqContextCapable
		}
		if e.deps.Profile == ProfileLegacy {
			legacy = true
		} else {
			narrowed = true
		}
	}
	if legacy && narrowed {
		return SeqMixedProfiles
	}
	return ""
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
	return ok && effect.ParallelSafe(r.effectOf(e))
}

// ExecuteBatch executes one model response's calls and returns their
// Returns in model order. Calls run in parallel unless SequentialReason
// says otherwise; sequential calls run in model order, each after the
// previous one finished.
//
// In parallel, this goroutine prepares and starts every Starter call
// itself and waits for the outcomes, without a goroutine per call; other
// calls each get a goroutine (their tool is user code that blocks), and so
// do journaled calls (their journal writes block).
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
	if opts.MaxConcurrency > 0 {
		// The limit counts calls in flight, so each waits for its call.
		var g errgroup.Group
		g.SetLimit(opts.MaxConcurrency)
		for i, c := range calls {
			cctx := callCtx(c)
			g.Go(func() error {
				r.executeInto(cctx, contextFor(i, c), c, &out[i])
				return nil
			})
		}
		_ = g.Wait() // Execute never fails; errors live in the returns.
		return out
	}
	var wg sync.WaitGroup
	wg.Add(len(calls))
	for i, c := range calls {
		if e, ok := r.entries[c.Name]; ok && r.startable(e) && !r.journals(e) {
			r.startInto(callCtx(c), contextFor(i, c), c, &out[i], &wg)
			continue
		}
		go r.startInto(callCtx(c), contextFor(i, c), c, &out[i], &wg)
	}
	wg.Wait()
	return out
}

// executeInto stores the Return of call in dst. Keeping the goroutine's
// first frame small spares it a stack growth.
func (r *Registry) executeInto(ctx context.Context, base *Context, call Call, dst *Return) {
	*dst = r.Execute(ctx, base, call)
}
