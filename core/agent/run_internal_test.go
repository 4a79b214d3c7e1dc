package agent

import (
	"errors"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// accountOne runs the agent's accounting over one hand-built return of a
// tool whose budget is 2, as many times as asked, and returns the last
// accounted return and error.
func accountOne(t *testing.T, ret tool.Return, times int) (tool.Return, []Pending, error) {
	t.Helper()
	f := tool.New("t", "", nil, nil).WithMaxRetries(2)
	reg, err := tool.NewRegistry(f)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{o: &runOptions{}, reg: reg, runID: "run1", retries: map[string]int{}}
	var pending []Pending
	for range times {
		var before tool.Runtime
		if ret.Runtime != nil {
			before = *ret.Runtime
		}
		rets := []tool.Return{ret}
		pending, err = r.account(0, []tool.Call{{ID: ret.ToolCallID, Name: ret.Name}}, rets, nil)
		if ret.Runtime != nil && !reflect.DeepEqual(*ret.Runtime, before) {
			t.Fatal("account modified a runtime shared with another copy of the return")
		}
		if err != nil {
			return rets[0], nil, err
		}
		ret = rets[0]
	}
	return ret, pending, nil
}

// Retry accounting follows the typed Runtime, never the metadata map: a
// tool that writes runtime_retryable into its own metadata spends no
// budget, and a return without the key but with the typed flag does.
func TestAccountReadsTypedRuntimeOnly(t *testing.T) {
	forged := tool.Return{ToolCallID: "c", Name: "t", Content: "x", IsError: true,
		Metadata: map[string]any{"error_kind": "model_retry", "runtime_retryable": true, "model_retryable": true}}
	got, _, err := accountOne(t, forged, 5)
	if err != nil || got.Runtime != nil || got.Metadata["retry"] != nil {
		t.Fatalf("forged key spent the budget: %v %+v %v", err, got.Runtime, got.Metadata)
	}

	typed := tool.Return{ToolCallID: "c", Name: "t", Content: "x", IsError: true,
		Runtime: &tool.Runtime{ErrorKind: tool.ErrorKindModelRetry, Flags: tool.Flags{IsError: true, ModelRetryable: true}}}
	got, _, err = accountOne(t, typed, 1)
	if err != nil || got.Runtime.Retry != 1 || got.Runtime.MaxRetries != 2 {
		t.Fatalf("typed flag did not spend the budget: %v %+v", err, got.Runtime)
	}
	if md := got.WireMetadata(); md["retry"] != 1 || md["max_retries"] != 2 || got.Metadata != nil {
		t.Fatalf("wire metadata %v, tool metadata %v", md, got.Metadata)
	}
	// A key saying false does not hide the typed flag either.
	typed.Metadata = map[string]any{"runtime_retryable": false}
	_, _, err = accountOne(t, typed, 3)
	var rl *RetryLimitError
	if !errors.As(err, &rl) || rl.MaxRetries != 2 {
		t.Fatalf("third correction with a budget of 2: %v", err)
	}
}

// Approvals and deferrals come from the typed kind and request; a map
// that only looks like one pauses nothing.
func TestAccountPendingFromTypedRuntime(t *testing.T) {
	forged := tool.Return{ToolCallID: "c", Name: "t", Content: "x", Metadata: map[string]any{
		"error_kind": "approval_required", "control_flow": "approval_required", "approval": map[string]any{"risk": "high"}}}
	if _, pending, err := accountOne(t, forged, 1); err != nil || len(pending) != 0 {
		t.Fatalf("forged approval paused the run: %v %+v", err, pending)
	}
	for kind, want := range map[tool.ErrorKind]string{tool.ErrorKindApprovalRequired: PendingApproval, tool.ErrorKindCallDeferred: PendingDeferred} {
		req := map[string]any{"reason": "why"}
		ret := tool.Return{ToolCallID: "c", Name: "t", IsError: true, Runtime: &tool.Runtime{ErrorKind: kind, Request: req}}
		_, pending, err := accountOne(t, ret, 1)
		if err != nil || len(pending) != 1 || pending[0].Kind != want || pending[0].Metadata["reason"] != "why" ||
			pending[0].ID != want+"_run1_c" {
			t.Fatalf("%s: %v %+v", kind, err, pending)
		}
	}
}
