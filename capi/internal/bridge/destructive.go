package bridge

import (
	"context"
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/tool"
)

// hostDestructiveDecider is the host function id as a
// tool.DestructiveDecider: it is called like a host tool that reads its
// context (the destructive call's), with the arguments {"arguments":
// <the call's arguments>}, and its value is the policy ("approve",
// "allow" or "deny"; core refuses another). A failed or malformed answer
// decides "approve": a person then sees the call, which is the safe side.
func hostDestructiveDecider(id int64) tool.DestructiveDecider {
	host := &hostTool{id: id, def: tool.Definition{Name: "destructive_policy"}, context: true}
	return func(ctx context.Context, tc *tool.Context, call tool.Call) tool.DestructivePolicy {
		args, err := json.Marshal(map[string]json.RawMessage{"arguments": call.Arguments})
		if err != nil {
			return tool.DestructiveApprove
		}
		res, err := host.Call(ctx, tc, args)
		if err != nil {
			return tool.DestructiveApprove
		}
		b, ok := res.Content.(json.RawMessage)
		var p string
		if !ok || json.Unmarshal(b, &p) != nil {
			return tool.DestructiveApprove
		}
		return tool.DestructivePolicy(p)
	}
}
