package toolset_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestDeferredDefinitionsAndCall(t *testing.T) {
	p := &probe{}
	ts := toolset.Deferred(toolset.New("jobs", echo("render", p), echo("status", nil)).WithID("jobs_id"), "render")
	if ts.Name() != "jobs_deferred" || ts.ID() != "jobs_id.deferred" {
		t.Fatalf("name/id = %q/%q", ts.Name(), ts.ID())
	}
	d := definition(t, ts, "render")
	if d.Metadata[tool.MetaDeferredCall] != true || d.Metadata[tool.MetaKind] != string(tool.KindDeferred) {
		t.Fatalf("metadata = %v", d.Metadata)
	}
	if s := definition(t, ts, "status"); s.Metadata[tool.MetaDeferredCall] != nil {
		t.Fatalf("unselected tool deferred: %v", s.Metadata)
	}

	r := register(t, nil, ts)
	ret := execute(r, &tool.Context{RunID: "run9"}, "render", `{"value":"page"}`)
	wantKind(t, ret, tool.ErrorKindCallDeferred)
	if p.count() != 0 {
		t.Fatal("a deferred tool ran")
	}
	if ret.WireMetadata()["control_flow"] != "call_deferred" {
		t.Fatalf("metadata = %v", ret.Metadata)
	}
	req := ret.WireMetadata()["deferred"].(map[string]any)
	want := map[string]any{
		"kind": "client_tool_call", "deferred_id": "deferred_run9_call1", "tool_call_id": "call1",
		"tool_name": "render", "toolset": "jobs", "reason": toolset.DeferredReason,
	}
	for k, v := range want {
		if req[k] != v {
			t.Errorf("request[%s] = %v, want %v", k, req[k], v)
		}
	}
	if args, _ := req["arguments"].(map[string]any); args["value"] != "page" {
		t.Fatalf("arguments = %v", req["arguments"])
	}

	// Arguments are still validated before deferral.
	wantKind(t, execute(r, nil, "render", `{}`), tool.ErrorKindInvalidArguments)
	wantSuccess(t, execute(r, nil, "status", `{"value":"x"}`))
}

func TestClientToolIsAlwaysDeferred(t *testing.T) {
	ct := toolset.ClientTool("pick_file", "Let the user pick a file", map[string]any{
		"type": "object", "properties": map[string]any{"filter": map[string]any{"type": "string"}},
	})
	d := ct.Definition()
	if d.Name != "pick_file" || d.Description != "Let the user pick a file" || d.Metadata[tool.MetaDeferredCall] != true || d.Metadata[tool.MetaKind] != string(tool.KindDeferred) {
		t.Fatalf("definition = %+v", d)
	}
	r := register(t, nil, toolset.New("client", ct))
	ret := execute(r, &tool.Context{RunID: "r"}, "pick_file", `{"filter":"*.go"}`)
	wantKind(t, ret, tool.ErrorKindCallDeferred)
	req := ret.WireMetadata()["deferred"].(map[string]any)
	if req["kind"] != "client_tool_call" || req["reason"] != toolset.ClientToolReason || req["tool_name"] != "pick_file" || req["deferred_id"] != "deferred_r_call1" {
		t.Fatalf("request = %v", req)
	}
	if _, has := req["toolset"]; has {
		t.Fatalf("a client tool has no toolset: %v", req)
	}
	wantKind(t, execute(r, nil, "pick_file", `{"filter":3}`), tool.ErrorKindInvalidArguments)
}
