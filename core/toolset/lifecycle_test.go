package toolset_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// resource is a static toolset with a lifecycle.
type resource struct {
	*toolset.Static
	perStep bool
}

func (r *resource) Enter(context.Context, *tool.RunContext) error { return nil }
func (r *resource) Exit(context.Context, *tool.RunContext) error  { return nil }
func (r *resource) PerStep() bool                                 { return r.perStep }

func TestLifecycleFoundThroughCombinators(t *testing.T) {
	res := &resource{Static: toolset.New("res", echo("echo", nil)), perStep: true}
	p := toolset.LifecyclePolicy{ReadTimeout: time.Second, KeepOpen: true}
	wrapped := toolset.Combined("all",
		toolset.New("plain", echo("other", nil)),
		toolset.ApprovalRequired(toolset.Prefixed("x", toolset.WithLifecycle(toolset.Include(res, "echo"), p))),
	)
	if !toolset.Managed(wrapped) || !toolset.PerStep(wrapped) {
		t.Fatal("the lifecycle inside the combinators is not found")
	}
	if got := toolset.LifecyclesOf(wrapped); len(got) != 1 || got[0] != toolset.Lifecycle(res) {
		t.Fatalf("lifecycles %v", got)
	}
	if got := toolset.PolicyOf(wrapped); got != p {
		t.Fatalf("policy %+v", got)
	}
	plain := toolset.Prefixed("x", toolset.New("plain", echo("other", nil)))
	if toolset.Managed(plain) || toolset.PerStep(plain) || toolset.PolicyOf(plain) != (toolset.LifecyclePolicy{}) {
		t.Fatal("a plain toolset is managed")
	}
	// A policy alone makes a toolset managed; a Dynamic that is not per
	// step does not.
	if !toolset.Managed(toolset.WithLifecycle(toolset.New("p"), p)) {
		t.Fatal("a toolset with a policy is not managed")
	}
	if toolset.Managed(&notPerStep{toolset.New("n")}) {
		t.Fatal("a toolset read once per run is managed")
	}
}

type notPerStep struct{ *toolset.Static }

func (notPerStep) PerStep() bool { return false }

func TestWithLifecycleKeepsTheToolset(t *testing.T) {
	inner := toolset.New("docs", echo("echo", nil)).WithID("d").WithInstructions("read docs")
	ts := toolset.WithLifecycle(inner, toolset.LifecyclePolicy{})
	tools, err := ts.Tools(nil)
	if err != nil || len(tools) != 1 || ts.Name() != "docs" || ts.ID() != "d" || len(ts.Instructions(nil)) != 1 {
		t.Fatalf("%v %v", tools, err)
	}
}

func TestLifecycleErrorMessages(t *testing.T) {
	e := &toolset.LifecycleError{Toolset: "docs", Phase: "read", Timeout: 50 * time.Millisecond, Err: toolset.ErrTimeout}
	if e.Error() != `toolset "docs": read timed out after 50ms` || !errors.Is(e, toolset.ErrTimeout) {
		t.Fatal(e)
	}
	e = &toolset.LifecycleError{Toolset: "docs", Phase: "enter", Err: errors.New("refused")}
	if e.Error() != `toolset "docs": enter: refused` {
		t.Fatal(e)
	}
}

// stuckExit is a toolset whose Exit returns only when its context ends,
// as a server that never acknowledges a shutdown.
type stuckExit struct {
	*toolset.Static
	exited chan error // receives Exit's context error when it returns
}

func (s *stuckExit) Enter(context.Context, *tool.RunContext) error { return nil }
func (s *stuckExit) Exit(ctx context.Context, _ *tool.RunContext) error {
	<-ctx.Done()
	s.exited <- ctx.Err()
	return ctx.Err()
}

// An Exit past the policy's ExitTimeout is cut off: its context ends, the
// run keeps its outcome, and a toolset_failed report names the toolset,
// the exit phase and the bound.
func TestExitTimeoutIsReportedAndKeepsTheOutcome(t *testing.T) {
	st := &stuckExit{Static: toolset.New("slowexit", echo("echo", nil)).WithID("slowexit"), exited: make(chan error, 1)}
	ts := toolset.WithLifecycle(st, toolset.LifecyclePolicy{ExitTimeout: 20 * time.Millisecond})
	var mu sync.Mutex
	var kinds []string
	var failed map[string]any
	events := agent.WithEvents(func(ev agent.Event) {
		if ev.Custom == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		kinds = append(kinds, ev.Custom.Kind)
		if ev.Custom.Kind == "toolset_failed" {
			failed = ev.Custom.Payload
		}
	})
	m := model.NewTestModel(model.Response(model.TextPart("done")))
	res, err := agent.NewBuilder(m).Toolset(ts).MustBuild().Run(context.Background(), "go", events)
	if err != nil || res.Output != "done" || res.Status != agent.StatusCompleted {
		t.Fatalf("run: %v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) != 2 || kinds[0] != "toolset_initialized" || kinds[1] != "toolset_failed" {
		t.Fatalf("events %v", kinds)
	}
	if failed["phase"] != "exit" || !strings.Contains(failed["error"].(string), `toolset "slowexit": exit timed out after 20ms`) {
		t.Fatalf("failed report %v", failed)
	}
	// The bound ended the stuck Exit's context, so it returned.
	if err := <-st.exited; !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		t.Fatalf("Exit's context ended with %v", err)
	}
}
