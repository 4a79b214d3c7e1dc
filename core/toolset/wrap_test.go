package toolset_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// everyWrapper applies each wrapping combinator to ts, selecting all
// tools, paired with the name the tool "t" gets.
func everyWrapper(ts toolset.Toolset) map[string]struct {
	ts   toolset.Toolset
	name string
} {
	keep := func(tool.Definition) bool { return true }
	same := func(_ *tool.RunContext, defs []tool.Definition) []tool.Definition { return defs }
	return map[string]struct {
		ts   toolset.Toolset
		name string
	}{
		"prefixed":     {toolset.Prefixed("p", ts), "p_t"},
		"filtered":     {toolset.Filtered(ts, keep), "t"},
		"renamed":      {toolset.Renamed(ts, map[string]string{"t": "u"}), "u"},
		"metadata":     {toolset.WithMetadata(ts, map[string]any{"k": "v"}), "t"},
		"prepared":     {toolset.Prepared(ts, same), "t"},
		"combined":     {toolset.Combined("c", ts), "t"},
		"approval":     {toolset.ApprovalRequired(ts), "t"},
		"deferred":     {toolset.Deferred(ts), "t"},
		"nested stack": {toolset.Prefixed("p", toolset.ApprovalRequired(toolset.Renamed(toolset.WithMetadata(ts, map[string]any{"k": 1}), map[string]string{"t": "u"}))), "p_u"},
	}
}

func TestWrappersForwardTheToolConfig(t *testing.T) {
	inner := echo("t", nil).WithTimeout(shortTimeout).WithArgumentValidator(func(*tool.Context, map[string]any) error { return nil })
	for name, w := range everyWrapper(toolset.New("s", inner)) {
		t.Run(name, func(t *testing.T) {
			tools, err := w.ts.Tools(nil)
			if err != nil || len(tools) != 1 {
				t.Fatalf("tools = %v, %v", tools, err)
			}
			if tools[0].Definition().Name != w.name {
				t.Fatalf("name = %q, want %q", tools[0].Definition().Name, w.name)
			}
			if got := tool.ConfigOf(tools[0]); got != tool.ConfigOf(inner) {
				t.Fatalf("config %p is not the inner tool's %p", got, tool.ConfigOf(inner))
			}
		})
	}
}

func TestWrappersKeepAvailabilityAndHooks(t *testing.T) {
	inner := echo("t", nil).
		WithAvailability(func(rc *tool.RunContext) bool { return rc.Metadata["on"] == true }).
		WithHook(tool.Hook{Name: "stamp", Before: func(_ context.Context, _ *tool.Context, args map[string]any) error {
			args["value"] = "hooked"
			return nil
		}})
	for name, w := range everyWrapper(toolset.New("s", inner)) {
		t.Run(name, func(t *testing.T) {
			r := register(t, nil, w.ts)
			if a := r.DefinitionsFor(&tool.RunContext{}); len(a.Available) != 0 || len(a.Unavailable) != 1 {
				t.Fatalf("availability lost: %+v", a)
			}
			if a := r.DefinitionsFor(&tool.RunContext{Metadata: map[string]any{"on": true}}); len(a.Available) != 1 || a.Available[0] != w.name {
				t.Fatalf("availability lost: %+v", a)
			}
			tc := &tool.Context{Approval: &tool.Approval{Status: "approved"}}
			ret := execute(r, tc, w.name, `{"value":"raw"}`)
			if ret.ErrorKind() == tool.ErrorKindCallDeferred {
				args := ret.Runtime.Request["arguments"].(map[string]any)
				if args["value"] != "hooked" {
					t.Fatalf("deferred arguments = %v", args)
				}
				return
			}
			wantSuccess(t, ret)
			if content(t, ret)["value"] != "hooked" {
				t.Fatalf("hook did not run: %v", ret.Content)
			}
		})
	}
}

// broken is a tool whose construction failed.
type broken struct{}

func (broken) Definition() tool.Definition { return tool.Definition{Name: "t"} }
func (broken) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, nil
}
func (broken) Err() error { return errBroken }

var errBroken = errors.New("schema could not be generated")

func TestWrappersForwardConstructionErrorsAndUnwrap(t *testing.T) {
	for name, w := range everyWrapper(toolset.New("s", broken{})) {
		t.Run(name, func(t *testing.T) {
			if err := toolset.Register(&tool.Registry{}, nil, w.ts); !errors.Is(err, errBroken) {
				t.Fatalf("Register err = %v, want the construction error", err)
			}
			tools, _ := w.ts.Tools(nil)
			inner := tools[0]
			for {
				u, ok := inner.(interface{ Unwrap() tool.Tool })
				if !ok {
					break
				}
				inner = u.Unwrap()
			}
			if _, ok := inner.(broken); !ok {
				t.Fatalf("unwrapping ends at %T", inner)
			}
		})
	}
}
