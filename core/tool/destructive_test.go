package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

func destructive(runs *atomic.Int32) *tool.Function {
	return tool.New("wipe", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		runs.Add(1)
		return tool.Text("wiped"), nil
	}).WithEffect(effect.ClassDestructive)
}

// A bare registry allows destructive calls; under "approve" a call waits
// unless approved or self-managed; "deny" refuses even approved ones.
func TestDestructivePolicyOfARegistry(t *testing.T) {
	var runs atomic.Int32
	r := mustRegistry(t, destructive(&runs))
	if r.DestructivePolicyOf() != tool.DestructiveAllow {
		t.Fatalf("zero policy %q", r.DestructivePolicyOf())
	}
	if ret := r.Execute(context.Background(), nil, call("1", "wipe", `{}`)); ret.IsError || runs.Load() != 1 {
		t.Fatalf("allowed: %+v", ret)
	}
	if err := r.SetDestructivePolicy(tool.DestructiveApprove, nil); err != nil {
		t.Fatal(err)
	}
	ret := r.Execute(context.Background(), nil, call("2", "wipe", `{}`))
	if ret.ErrorKind() != tool.ErrorKindApprovalRequired || ret.Runtime.Request[tool.MetaDestructivePolicy] != "approve" || runs.Load() != 1 {
		t.Fatalf("approve: %+v", ret)
	}
	approved := &tool.Context{Approval: &tool.Approval{Status: "approved"}}
	if ret := r.Execute(context.Background(), approved, call("3", "wipe", `{}`)); ret.IsError || runs.Load() != 2 {
		t.Fatalf("approved: %+v", ret)
	}
	_ = r.SetDestructivePolicy(tool.DestructiveDeny, nil)
	if ret := r.Execute(context.Background(), approved, call("4", "wipe", `{}`)); ret.ErrorKind() != tool.ErrorKindApprovalDenied || runs.Load() != 2 {
		t.Fatalf("deny: %+v", ret)
	}
	if err := r.SetDestructivePolicy("maybe", nil); !errors.Is(err, tool.ErrInvalidOption) {
		t.Fatalf("err %v", err)
	}
}

func TestDestructiveSelfManagedAndOtherClasses(t *testing.T) {
	var runs atomic.Int32
	self := destructive(&runs).WithMetadata(map[string]any{tool.MetaSelfManagedHITL: true})
	read := tool.New("look", "", map[string]any{"type": "object"}, okHandler).WithEffect(effect.ClassReadOnly)
	r := mustRegistry(t, self, read)
	_ = r.SetDestructivePolicy(tool.DestructiveApprove, nil)
	if ret := r.Execute(context.Background(), nil, call("1", "wipe", `{}`)); ret.IsError || runs.Load() != 1 {
		t.Fatalf("self-managed: %+v", ret)
	}
	if ret := r.Execute(context.Background(), nil, call("2", "look", `{}`)); ret.IsError {
		t.Fatalf("read-only: %+v", ret)
	}
}

// The decider sees the arguments the tool would: projected values
// materialised.
func TestDestructiveDeciderSeesProjectedArguments(t *testing.T) {
	var runs atomic.Int32
	r := mustRegistry(t, destructive(&runs))
	var calls atomic.Int32
	r.SetProjectionResolver(resolver(&calls))
	var seen string
	_ = r.SetDestructivePolicy(tool.DestructiveDeny, func(_ context.Context, _ *tool.Context, c tool.Call) tool.DestructivePolicy {
		seen = string(c.Arguments)
		return tool.DestructiveAllow
	})
	ret := r.Execute(context.Background(), nil, call("1", "wipe", `{"n":{"__projection_ref__":"n"}}`))
	if ret.IsError || seen != `{"n":42}` || runs.Load() != 1 {
		t.Fatalf("return %+v, decider saw %s", ret, seen)
	}
}
