package tool_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestDispatchBatchRunsChildrenUnderTheirParentsKey(t *testing.T) {
	var mu sync.Mutex
	keys := map[string]string{}
	child := tool.New("child", "", map[string]any{"type": "object"}, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		keys[tc.ToolCallID] = tc.IdempotencyKey()
		mu.Unlock()
		return tool.Text("ok"), nil
	}).WithEffect(effect.ClassReadOnly)
	hidden := tool.Unlisted(tool.New("hidden", "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("hidden"), nil
	}))
	var offers, safe []bool
	var rets []tool.Return
	parent := tool.New("parent", "", map[string]any{"type": "object"}, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		offers = []bool{tc.Offers("child"), tc.Offers("hidden"), tc.Offers("nope")}
		safe = []bool{tc.RepeatSafe("child"), tc.RepeatSafe("parent"), tc.RepeatSafe("nope")}
		rets = tc.DispatchBatch(ctx, []tool.Call{
			{ID: "p:00", Name: "child", Arguments: json.RawMessage(`{}`), Index: 0},
			{ID: "p:01", Name: "child", Arguments: json.RawMessage(`{}`), Index: 1},
			{ID: "p:02", Name: "hidden", Arguments: json.RawMessage(`{}`), Index: 2},
		}, tool.DispatchOptions{})
		return tool.Text("done"), nil
	})
	reg, err := tool.NewRegistry(parent, child, hidden)
	if err != nil {
		t.Fatal(err)
	}
	base := &tool.Context{ConversationID: "s", RunID: "r", RunStep: 2}
	if ret := reg.Execute(context.Background(), base, tool.Call{ID: "p", Name: "parent", Arguments: json.RawMessage(`{}`), Index: 4}); ret.ErrorKind() != "" {
		t.Fatalf("parent: %v", ret.Content)
	}
	if offers[0] != true || offers[1] || offers[2] {
		t.Fatalf("offers %v", offers)
	}
	if safe[0] != true || safe[1] || safe[2] {
		t.Fatalf("repeat-safe %v", safe)
	}
	if rets[0].Content != "ok" || rets[1].Content != "ok" || rets[2].ErrorKind() != tool.ErrorKindNotFound {
		t.Fatalf("returns %v", rets)
	}
	want := map[string]string{"p:00": "session/s/run/r/turn/2/call/4/child/0", "p:01": "session/s/run/r/turn/2/call/4/child/1"}
	if len(keys) != 2 || keys["p:00"] != want["p:00"] || keys["p:01"] != want["p:01"] {
		t.Fatalf("keys %v", keys)
	}
	out := (&tool.Context{}).DispatchBatch(context.Background(), []tool.Call{{ID: "x", Name: "child"}}, tool.DispatchOptions{})
	if out[0].ErrorKind() != tool.ErrorKindUserError || (&tool.Context{}).Offers("child") || (&tool.Context{}).RepeatSafe("child") {
		t.Fatalf("outside a registry: %v", out[0].Content)
	}
}
