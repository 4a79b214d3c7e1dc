package bridge

import (
	"context"
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/tool"
)

// hostProjectionResolver is the host function id as a
// tool.ProjectionResolver: it is called like a host tool that reads its
// context, with the arguments {"ref": <reference>}, and its outcome's
// value is the materialised value; an error outcome is the resolver's
// error.
func hostProjectionResolver(id int64) tool.ProjectionResolver {
	host := &hostTool{id: id, def: tool.Definition{Name: "projection_resolver"}, context: true}
	return tool.ProjectionResolverFunc(func(ctx context.Context, tc *tool.Context, ref json.RawMessage) (json.RawMessage, error) {
		args, err := json.Marshal(map[string]json.RawMessage{"ref": ref})
		if err != nil {
			return nil, err
		}
		res, err := host.Call(ctx, tc, args)
		if err != nil {
			return nil, err
		}
		b, ok := res.Content.(json.RawMessage)
		if !ok {
			return nil, tool.UserError("the host's projection resolver returned no value")
		}
		return b, nil
	})
}
