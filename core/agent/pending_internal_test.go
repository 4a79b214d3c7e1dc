package agent

import (
	"context"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A call whose journal holds a pending final attempt is not run again:
// its deferral comes back under the same completion key.
func TestRedrivenPendingWaitsAgain(t *testing.T) {
	x := callIntents{&intent.Realiser{Journal: intent.NewMemoryJournal()}}
	tc := &tool.Context{ConversationID: "s", RunID: "run", RunStep: 2}
	call := tool.Call{ID: "c1", Name: "render"}
	ran := 0
	run := func(context.Context) tool.Return {
		ran++
		return tool.ErrorReturn(call, tool.Pending("queued", tool.PendingCompletion{OnTimeout: "fail_turn"}))
	}
	first := x.RealiseCall(context.Background(), tc, call, run)
	second := x.RealiseCall(context.Background(), tc, call, run)
	want, _ := intent.DeriveCompletionKey("s", "run:2", "c1")
	if ran != 1 || second.ErrorKind() != tool.ErrorKindCallDeferred || first.ErrorKind() != tool.ErrorKindCallDeferred {
		t.Fatalf("ran %d, kinds %q %q", ran, first.ErrorKind(), second.ErrorKind())
	}
	c, ok := tool.PendingOf(second.Runtime.Request)
	if !ok || c.OnTimeout != "fail_turn" || completionKeyOf(second.Runtime.Request) != want {
		t.Fatalf("replayed request %+v", second.Runtime.Request)
	}
}
