package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Context event kinds of the toolset lifecycle, published through the
// session's agent context (so they reach the run as custom events). Their
// payload is a report: "toolset" (name), "id", "status" (initialized,
// unavailable, failed or closed), "tool_count", "instruction_count" and,
// for a failure, "error" and "phase" (enter, read or exit).
const (
	// CustomToolsetInitialized: the toolset was entered (unless its policy
	// skips Enter) and its inventory first read in the run.
	CustomToolsetInitialized = "toolset_initialized"
	// CustomToolsetUnavailable: Enter failed or timed out; the toolset is
	// left out of the run (with a Warning), unless its policy or the
	// toolset itself (toolset.Optionality) fails the run.
	CustomToolsetUnavailable = "toolset_unavailable"
	// CustomToolsetFailed: a read failed (the run fails), or Exit did.
	CustomToolsetFailed = "toolset_failed"
	// CustomToolsetClosed: Exit returned at the run's end.
	CustomToolsetClosed = "toolset_closed"
)

// managedSets are the toolsets of a run that the runner reads itself, at
// each step that needs them, rather than once when the run starts: those
// with a lifecycle, a policy, a refresh or a per-step inventory (see
// toolset.Managed). A run without any has none (runner.ts is nil) and
// keeps the registry built once per run, at no cost.
type managedSets struct {
	// base is the run's registry without the managed toolsets, before
	// the run's grants and the artifact tool apply.
	base *tool.Registry
	// own are the agent's and the run's own instructions; sets are every
	// toolset of the run in order, and ins the instructions of those that
	// are not managed, read once (nil for the managed ones).
	own  []string
	sets []toolset.Toolset
	ins  [][]toolset.Instruction
	list []*managedSet
	// resumed makes the first read of each toolset a refresh (a resumed
	// or recovered run).
	resumed bool
	built   bool
}

// managedSet is one managed toolset of a run and where it stands.
type managedSet struct {
	ts      toolset.Toolset // as registered (approval-gated when the agent says so)
	index   int             // in managedSets.sets
	policy  toolset.LifecyclePolicy
	perStep bool
	state   setState
	// open says Exit is due at the run's end.
	open  bool
	tools []tool.Tool
	ins   []toolset.Instruction
}

type setState int

const (
	setPending setState = iota
	setReady
	setUnavailable
	setFailed
)

// managedMask reports which of sets are managed; nil when none is.
func managedMask(sets []toolset.Toolset) []bool {
	var mask []bool
	for i, ts := range sets {
		if ts != nil && toolset.Managed(ts) {
			if mask == nil {
				mask = make([]bool, len(sets))
			}
			mask[i] = true
		}
	}
	return mask
}

// frozen presents the inventory a managed toolset gave for a step to
// toolset.Register, which would otherwise read it again.
type frozen struct {
	toolset.Toolset
	tools []tool.Tool
}

func (f *frozen) Tools(*tool.RunContext) ([]tool.Tool, error) { return f.tools, nil }

// prepareToolsets enters and reads the managed toolsets that step needs:
// each is entered and read when the run first reaches a step, and read
// again at every step when it is per step. It rebuilds the run's registry
// and instructions when an inventory was read. A toolset that cannot be
// entered is reported and left out (or fails the run, as its policy or
// the agent's FailOnUnavailable says); a failed read fails the run.
func (r *runner) prepareToolsets(ctx context.Context, step int) error {
	t := r.ts
	if t == nil {
		return nil
	}
	changed := !t.built
	for _, m := range t.list {
		first := m.state == setPending
		if !first && (m.state != setReady || !m.perStep) {
			continue
		}
		if first {
			if !m.policy.SkipEnter {
				if failed, err := r.enterSet(ctx, m, step); err != nil {
					m.state = setUnavailable
					r.report(CustomToolsetUnavailable, m, err)
					if ctx.Err() != nil {
						return fmt.Errorf("%w: %w", ErrConfig, err)
					}
					if r.mustEnter(m, failed) {
						if o, ok := failed.(toolset.Optionality); ok && !o.Optional() {
							return fmt.Errorf("%w: %w; the run needs this toolset: mark it optional to run without it", ErrConfig, err)
						}
						return fmt.Errorf("%w: %w", ErrConfig, err)
					}
					r.warn(Warning{Kind: WarningToolsetUnavailable, Toolset: m.ts.Name(), ID: m.ts.ID(),
						Message: "the run goes on without its tools: " + err.Error()})
					continue
				}
			}
			m.open = true
		}
		tools, ins, err := r.readSet(ctx, m, step, first && t.resumed)
		if err != nil {
			m.state = setFailed
			r.report(CustomToolsetFailed, m, err)
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		m.tools, m.ins, changed = tools, ins, true
		if first {
			m.state = setReady
			r.report(CustomToolsetInitialized, m, nil)
		}
	}
	if !changed {
		return nil
	}
	t.built = true
	return r.rebuild()
}

// rebuild makes the run's registry and instructions from the base and the
// inventories last read.
func (r *runner) rebuild() error {
	t := r.ts
	reg := t.base.Clone()
	sets := make([]toolset.Toolset, 0, len(t.list))
	ins := append([][]toolset.Instruction(nil), t.ins...)
	for _, m := range t.list {
		if m.state == setReady {
			sets = append(sets, &frozen{Toolset: m.ts, tools: m.tools})
			ins[m.index] = m.ins
		}
	}
	if err := toolset.Register(reg, &r.rc, sets...); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := r.a.checkOutputName(reg); err != nil {
		return err
	}
	reg, err := r.o.restrict(reg)
	if err != nil {
		return err
	}
	if r.a.spills() {
		if err := reg.Add(r.readArtifactTool()); err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	r.reg = reg
	var all []toolset.Instruction
	for _, in := range ins {
		all = append(all, in...)
	}
	instr := t.own
	if rendered := toolset.RenderInstructions(all); rendered != "" {
		instr = append(instr[:len(instr):len(instr)], rendered)
	}
	r.instructions = strings.Join(instr, "\n\n")
	return nil
}

// stepContext is the run context of step, with ctx for cancellation.
func (r *runner) stepContext(ctx context.Context, step int) *tool.RunContext {
	rc := r.rc
	rc.RunStep = step
	rc.Ctx = ctx
	return &rc
}

// enterSet enters the lifecycles of m in order; on failure it returns the
// lifecycle that failed and the error.
func (r *runner) enterSet(ctx context.Context, m *managedSet, step int) (toolset.Lifecycle, error) {
	d := m.policy.InitializationTimeout
	for _, l := range toolset.LifecyclesOf(m.ts) {
		err := bounded(ctx, d, func(ctx context.Context) error { return l.Enter(ctx, r.stepContext(ctx, step)) })
		if err != nil {
			return l, &toolset.LifecycleError{Toolset: m.ts.Name(), ID: m.ts.ID(), Phase: "enter", Timeout: d, Err: err}
		}
	}
	return nil, nil
}

// mustEnter reports whether a run fails when failed, a lifecycle of m,
// cannot be entered: when m's policy says FailOnUnavailable; otherwise as
// failed says when it is a [toolset.Optionality] (an MCP server's toolset
// is required unless marked optional); otherwise when the agent fails
// closed on unavailable tools (which covers a toolset whose tools are all
// unavailable).
func (r *runner) mustEnter(m *managedSet, failed toolset.Lifecycle) bool {
	if m.policy.FailOnUnavailable {
		return true
	}
	if o, ok := failed.(toolset.Optionality); ok {
		return !o.Optional()
	}
	return r.a.unavailable == FailOnUnavailable
}

// readSet reads the inventory of m for step, refreshing first when asked.
func (r *runner) readSet(ctx context.Context, m *managedSet, step int, refresh bool) ([]tool.Tool, []toolset.Instruction, error) {
	d := m.policy.ReadTimeout
	var tools []tool.Tool
	var ins []toolset.Instruction
	err := bounded(ctx, d, func(ctx context.Context) error {
		rc := r.stepContext(ctx, step)
		if refresh {
			for _, rf := range toolset.RefreshersOf(m.ts) {
				if err := rf.Refresh(ctx, rc); err != nil {
					return err
				}
			}
		}
		ts, err := m.ts.Tools(rc)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// Assigned last: read only when bounded returns nil, after f.
		tools, ins = ts, m.ts.Instructions(rc)
		return nil
	})
	if err != nil {
		return nil, nil, &toolset.LifecycleError{Toolset: m.ts.Name(), ID: m.ts.ID(), Phase: "read", Timeout: d, Err: err}
	}
	return tools, ins, nil
}

// closeToolsets exits the managed toolsets that are open, in reverse
// order, at the end of the run (whatever its outcome), unless their policy
// keeps them open, and reports each.
func (r *runner) closeToolsets() {
	t := r.ts
	if t == nil {
		return
	}
	cancelled := r.rc.Ctx != nil && r.rc.Ctx.Err() != nil
	base := context.Background()
	if r.rc.Ctx != nil {
		// Exit runs after the run's end, cancellation included.
		base = context.WithoutCancel(r.rc.Ctx)
	}
	for i := len(t.list) - 1; i >= 0; i-- {
		m := t.list[i]
		if !m.open || m.policy.KeepOpen {
			continue
		}
		m.open = false
		d := m.policy.ExitTimeout
		if d <= 0 {
			d = toolset.DefaultExitTimeout
		}
		if cancelled {
			d = min(d, toolset.CancelledExitTimeout)
		}
		var err error
		ls := toolset.LifecyclesOf(m.ts)
		for j := len(ls) - 1; j >= 0; j-- {
			l := ls[j]
			e := bounded(base, d, func(ctx context.Context) error { return l.Exit(ctx, r.stepContext(ctx, r.requested)) })
			if e != nil && err == nil {
				err = &toolset.LifecycleError{Toolset: m.ts.Name(), ID: m.ts.ID(), Phase: "exit", Timeout: d, Err: e}
			}
		}
		if err != nil {
			r.report(CustomToolsetFailed, m, err)
			continue
		}
		r.report(CustomToolsetClosed, m, nil)
	}
}

// report publishes a lifecycle report of m through the session's agent
// context.
func (r *runner) report(kind string, m *managedSet, err error) {
	if r.s.actx == nil {
		return
	}
	status := strings.TrimPrefix(kind, "toolset_")
	count := 0
	for _, in := range m.ins {
		if strings.TrimSpace(in.Content) != "" {
			count++
		}
	}
	payload := map[string]any{"toolset": m.ts.Name(), "id": m.ts.ID(), "status": status,
		"tool_count": len(m.tools), "instruction_count": count}
	if err != nil {
		payload["error"] = err.Error()
		var le *toolset.LifecycleError
		if errors.As(err, &le) {
			payload["phase"] = le.Phase
		}
	}
	r.s.actx.Publish(kind, payload)
}

// bounded runs f with ctx bounded by d (when positive) and returns f's
// error, ctx's when ctx ends first, or toolset.ErrTimeout when d passes
// first. It returns at the bound even when f ignores its context: f then
// finishes in the background and what it returns is dropped, so a caller
// reads what f produced only when bounded returns nil.
func bounded(ctx context.Context, d time.Duration, f func(context.Context) error) error {
	if d <= 0 && ctx.Done() == nil {
		return f(ctx)
	}
	var cancel context.CancelFunc
	if d > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, d, toolset.ErrTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	select {
	case err := <-done:
		if err != nil && context.Cause(ctx) == toolset.ErrTimeout {
			return toolset.ErrTimeout
		}
		return err
	case <-ctx.Done():
		if cause := context.Cause(ctx); cause == toolset.ErrTimeout {
			return toolset.ErrTimeout
		}
		return ctx.Err()
	}
}

// newManagedSets prepares the managed toolsets of a run: managed are the
// toolsets to register, at their positions in sets; the others' instructions
// are read now, once.
func newManagedSets(base *tool.Registry, own []string, sets, managed []toolset.Toolset, at []int, rc *tool.RunContext) *managedSets {
	t := &managedSets{base: base, own: own, sets: sets, ins: make([][]toolset.Instruction, len(sets))}
	isManaged := make(map[int]bool, len(at))
	for i, ts := range managed {
		isManaged[at[i]] = true
		t.list = append(t.list, &managedSet{ts: ts, index: at[i], policy: toolset.PolicyOf(ts), perStep: toolset.PerStep(ts)})
	}
	for i, ts := range sets {
		if !isManaged[i] && ts != nil {
			t.ins[i] = ts.Instructions(rc)
		}
	}
	return t
}
