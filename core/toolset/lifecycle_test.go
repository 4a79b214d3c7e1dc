package toolset_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
