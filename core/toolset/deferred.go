package toolset

import (
	"context"
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Reasons recorded on deferred requests.
const (
	// DeferredReason is used by [Deferred].
	DeferredReason = "configured deferred tool policy"
	// ClientToolReason is used by [ClientTool].
	ClientToolReason = "client-managed deferred tool"
)

// Deferred hands the selected tools of ts to an external worker or a
// later run instead of running them. Selection works as in
// [ApprovalRequired] (without the self-managed exception).
//
// A deferred definition gets metadata deferred_call=true and
// starweaver_tool_kind="deferred". Calling it returns a [tool.CallDeferred]
// error without running the tool; its request metadata is
// {"kind": "client_tool_call", "deferred_id": "deferred_{run_id}_{tool_call_id}",
// "tool_call_id", "tool_name", "arguments", "toolset", "reason"}. The host
// resumes the run with the external result. The tool keeps its
// configuration, so its validators and schema still check the arguments
// before deferral.
//
// The toolset is named "{name}_deferred", with id "{id}.deferred" (no id
// stays no id). Deferred panics if ts is nil.
func Deferred(ts Toolset, selectors ...string) Toolset {
	mustToolset(ts, "Deferred")
	sel := newSelector(selectors)
	d := &derived{inner: ts, name: ts.Name() + "_deferred", id: suffixID(ts.ID(), ".deferred")}
	d.tools = func(_ *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		out := make([]tool.Tool, len(tools))
		for i, t := range tools {
			def := t.Definition()
			if !sel.match(ts, def) {
				out[i] = t
				continue
			}
			w := wrap(t, withMetadata(def, deferredMetadata))
			toolset := ts.Name()
			w.call = func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
				return tool.Result{}, tool.CallDeferred(DeferredReason, deferredRequest(tc, args, toolset))
			}
			out[i] = w
		}
		return out, nil
	}
	return d
}

var deferredMetadata = map[string]any{
	tool.MetaDeferredCall: true,
	tool.MetaKind:         string(tool.KindDeferred),
}

// ClientTool returns a tool without a body, executed by the client: every
// call is deferred (as by [Deferred], with reason [ClientToolReason] and
// no "toolset" key). parameters is its JSON Schema; nil means no
// arguments. Its definition carries deferred_call=true and kind
// "deferred"; the result may be configured further with the
// [tool.Function] With methods.
func ClientTool(name, description string, parameters map[string]any) *tool.Function {
	return tool.New(name, description, parameters, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.CallDeferred(ClientToolReason, deferredRequest(tc, args, ""))
	}).WithMetadata(deferredMetadata)
}

// deferredRequest builds the request metadata of a deferred call.
func deferredRequest(tc *tool.Context, args json.RawMessage, toolset string) map[string]any {
	if tc == nil {
		tc = &tool.Context{}
	}
	md := map[string]any{
		"kind":         "client_tool_call",
		"deferred_id":  "deferred_" + tc.RunID + "_" + tc.ToolCallID,
		"tool_call_id": tc.ToolCallID,
		"tool_name":    tc.ToolName,
		"arguments":    decodeArguments(args),
	}
	if toolset != "" {
		md["toolset"] = toolset
	}
	return md
}
