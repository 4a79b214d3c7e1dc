package tool

import "context"

// Outcome is a call's result or error as after-hooks see it.
type Outcome struct {
	Result Result
	Err    error
}

// Hook wraps tool execution. Before runs once per call, before validation:
// global hooks first, then the tool's; it may change tc and args in place,
// and an error ends the call with that error's return (args hold numbers
// as json.Number, as for an ArgumentValidator). After runs after each
// attempt: the tool's hooks first, then global ones; it may change the
// outcome, and an error replaces it. Approval and deferred outcomes are
// control flow: After observes a copy of them and cannot replace them.
type Hook struct {
	Name   string
	Before func(ctx context.Context, tc *Context, args map[string]any) error
	After  func(ctx context.Context, tc *Context, out *Outcome) error
}

func isControlFlow(err error) bool {
	k := KindOf(err)
	return k == ErrorKindApprovalRequired || k == ErrorKindCallDeferred
}

func runBefore(ctx context.Context, hooks [2][]Hook, tc *Context, args map[string]any) error {
	for _, group := range hooks {
		for _, h := range group {
			if h.Before == nil {
				continue
			}
			if err := h.Before(ctx, tc, args); !isNil(err) {
				return err
			}
		}
	}
	return nil
}

// runAfter runs after-hooks in the reverse group order of runBefore.
func runAfter(ctx context.Context, hooks [2][]Hook, tc *Context, out *Outcome) {
	control := isControlFlow(out.Err)
	target := out
	if control {
		cp := *out
		target = &cp
	}
	for i := len(hooks) - 1; i >= 0; i-- {
		for _, h := range hooks[i] {
			if h.After == nil {
				continue
			}
			if err := h.After(ctx, tc, target); !isNil(err) && !control {
				target.Result, target.Err = Result{}, err
			}
		}
	}
}
