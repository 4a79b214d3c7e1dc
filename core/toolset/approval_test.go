package toolset_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func gatedSet(p *probe) toolset.Toolset {
	inner := toolset.New("files", echo("write", p).WithMetadata(map[string]any{"owner": "fs"}), echo("read", nil)).WithID("files_id")
	return toolset.ApprovalRequired(inner, "write")
}

func TestApprovalRequiredDefinitions(t *testing.T) {
	ts := gatedSet(nil)
	if ts.Name() != "files_approval_required" || ts.ID() != "files_id.approval_required" {
		t.Fatalf("name/id = %q/%q", ts.Name(), ts.ID())
	}
	w := definition(t, ts, "write")
	if w.Metadata[tool.MetaApprovalRequired] != true || w.Metadata[tool.MetaKind] != string(tool.KindUnapproved) || w.Metadata["owner"] != "fs" {
		t.Fatalf("gated metadata = %v", w.Metadata)
	}
	if k, _ := tool.MetadataKind(w.Metadata); k != tool.KindUnapproved {
		t.Fatalf("kind = %q", k)
	}
	if r := definition(t, ts, "read"); r.Metadata[tool.MetaApprovalRequired] != nil {
		t.Fatalf("unselected tool gated: %v", r.Metadata)
	}
	if id := toolset.ApprovalRequired(toolset.New("s")).ID(); id != "" {
		t.Fatalf("ID without an inner id = %q", id)
	}
}

func TestApprovalSelectors(t *testing.T) {
	inner := func() toolset.Toolset {
		return toolset.New("docs", echo("a", nil), echo("b", nil).WithMetadata(map[string]any{tool.MetaBundle: "shell"})).WithID("docs_id")
	}
	gated := func(ts toolset.Toolset) []string {
		var out []string
		tools, err := ts.Tools(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if d := tl.Definition(); d.Metadata[tool.MetaApprovalRequired] == true {
				out = append(out, d.Name)
			}
		}
		return out
	}
	cases := []struct {
		selectors []string
		want      []string
	}{
		{nil, []string{"a", "b"}},
		{[]string{"*"}, []string{"a", "b"}},
		{[]string{"a"}, []string{"a"}},
		{[]string{"docs_id"}, []string{"a", "b"}},
		{[]string{"docs"}, []string{"a", "b"}},
		{[]string{"shell"}, []string{"b"}},
		{[]string{"nothing"}, nil},
		{[]string{""}, nil},
	}
	for _, c := range cases {
		if got := gated(toolset.ApprovalRequired(inner(), c.selectors...)); !slices.Equal(got, c.want) {
			t.Errorf("selectors %q gate %v, want %v", c.selectors, got, c.want)
		}
		if got := gated(toolset.Deferred(inner(), c.selectors...)); got != nil {
			t.Errorf("Deferred marked approval_required: %v", got)
		}
	}
}

func TestApprovalGatesUntilApproved(t *testing.T) {
	p := &probe{}
	r := register(t, nil, gatedSet(p))

	ret := execute(r, &tool.Context{RunID: "run1"}, "write", `{"value":"draft"}`)
	wantKind(t, ret, tool.ErrorKindApprovalRequired)
	if p.count() != 0 {
		t.Fatal("the tool ran without approval")
	}
	if ret.WireMetadata()["control_flow"] != "approval_required" {
		t.Fatalf("metadata = %v", ret.Metadata)
	}
	req := ret.WireMetadata()["approval"].(map[string]any)
	if req["reason"] != toolset.ApprovalReason || req["toolset"] != "files" {
		t.Fatalf("request = %v", req)
	}
	if args, _ := req["arguments"].(map[string]any); args["value"] != "draft" {
		t.Fatalf("request arguments = %v", req["arguments"])
	}
	if tm, _ := req["tool_metadata"].(map[string]any); tm["owner"] != "fs" || tm[tool.MetaApprovalRequired] != nil {
		t.Fatalf("tool_metadata = %v (the tool's own metadata, before gating)", req["tool_metadata"])
	}

	// Ungated tools run directly.
	wantSuccess(t, execute(r, nil, "read", `{"value":"x"}`))

	// A denial asks again, with the decision's reason and metadata.
	denied := &tool.Context{Approval: &tool.Approval{Status: "denied", Metadata: map[string]any{"reason": "too risky"}}}
	ret = execute(r, denied, "write", `{"value":"draft"}`)
	wantKind(t, ret, tool.ErrorKindApprovalRequired)
	req = ret.WireMetadata()["approval"].(map[string]any)
	if req["reason"] != "too risky" || req["metadata"].(map[string]any)["reason"] != "too risky" || p.count() != 0 {
		t.Fatalf("denied request = %v, calls %d", req, p.count())
	}
}

func TestApprovedCallRunsWithOverrideAndMetadata(t *testing.T) {
	p := &probe{}
	r := register(t, nil, gatedSet(p))
	approved := &tool.Context{Approval: &tool.Approval{
		Status:            "approved",
		OverrideArguments: json.RawMessage(`{"value":"reviewed"}`),
		Metadata:          map[string]any{"decided_by": "alice"},
	}}
	ret := execute(r, approved, "write", `{"value":"draft"}`)
	wantSuccess(t, ret)
	if p.count() != 1 || p.lastArgs() != `{"value":"reviewed"}` || content(t, ret)["value"] != "reviewed" {
		t.Fatalf("calls=%d args=%s content=%v", p.count(), p.lastArgs(), ret.Content)
	}
	if ret.Metadata[toolset.MetaApprovalState] != "approved" || ret.Metadata["ran"] != "write" {
		t.Fatalf("metadata = %v", ret.Metadata)
	}
	if am, _ := ret.Metadata[toolset.MetaApprovalMetadata].(map[string]any); am["decided_by"] != "alice" {
		t.Fatalf("approval_metadata = %v", ret.Metadata[toolset.MetaApprovalMetadata])
	}

	// Without an override the model's arguments are used, and without
	// approval metadata none is recorded.
	ret = execute(r, &tool.Context{Approval: &tool.Approval{Status: "approved"}}, "write", `{"value":"draft"}`)
	wantSuccess(t, ret)
	if p.lastArgs() != `{"value":"draft"}` {
		t.Fatalf("args = %s", p.lastArgs())
	}
	if _, has := ret.Metadata[toolset.MetaApprovalMetadata]; has || ret.Metadata[toolset.MetaApprovalState] != "approved" {
		t.Fatalf("metadata = %v", ret.Metadata)
	}
}

func TestApprovedOverrideIsValidated(t *testing.T) {
	p := &probe{}
	w := echo("write", p).WithArgumentValidator(func(_ *tool.Context, args map[string]any) error {
		if args["value"] == "forbidden" {
			return tool.InvalidArguments("value is forbidden")
		}
		args["normalized"] = true
		return nil
	})
	r := register(t, nil, toolset.ApprovalRequired(toolset.New("s", w)))
	override := func(raw string) *tool.Context {
		return &tool.Context{Approval: &tool.Approval{Status: "approved", OverrideArguments: json.RawMessage(raw)}}
	}
	for raw, want := range map[string]string{
		`{"value":5}`:           "arguments do not match the schema",
		`{}`:                    "arguments do not match the schema",
		`{"value":"forbidden"}`: "value is forbidden",
		`[1]`:                   "must be a JSON object",
		`{"value":`:             "not valid JSON",
	} {
		ret := execute(r, override(raw), "write", `{"value":"ok"}`)
		wantKind(t, ret, tool.ErrorKindUserError)
		if msg := content(t, ret)["message"].(string); !strings.Contains(msg, want) {
			t.Errorf("override %s: message %q, want %q", raw, msg, want)
		}
	}
	if p.count() != 0 {
		t.Fatalf("the tool ran %d times with a rejected override", p.count())
	}
	wantSuccess(t, execute(r, override(`{"value":"fine"}`), "write", `{"value":"ok"}`))
	if got := p.lastArgs(); got != `{"normalized":true,"value":"fine"}` {
		t.Fatalf("args = %s, want the validated, normalised override", got)
	}
}

func TestSelfManagedHITLToolsAreNeverGated(t *testing.T) {
	p := &probe{}
	ask := echo("ask_user_question", p).WithMetadata(map[string]any{tool.MetaSelfManagedHITL: true})
	ts := toolset.ApprovalRequired(toolset.New("user_input", ask), "*")
	if d := definition(t, ts, "ask_user_question"); d.Metadata[tool.MetaApprovalRequired] != nil {
		t.Fatalf("metadata = %v", d.Metadata)
	}
	wantSuccess(t, execute(register(t, nil, ts), nil, "ask_user_question", `{"value":"?"}`))
	if p.count() != 1 {
		t.Fatalf("calls = %d", p.count())
	}
}

func TestApprovalKeepsConfiguration(t *testing.T) {
	ts := toolset.ApprovalRequired(toolset.Prefixed("p", toolset.New("s", blocking("slow", nil).WithTimeout(shortTimeout))))
	r := register(t, nil, ts)
	approved := &tool.Context{Approval: &tool.Approval{Status: "approved"}}
	ret := execute(r, approved, "p_slow", `{}`)
	wantKind(t, ret, tool.ErrorKindTimeout)
	if got := ret.Metadata["timeout_ms"]; got != shortTimeout.Milliseconds() {
		t.Fatalf("timeout_ms = %v", got)
	}
}

func TestApprovalOverrideUnderConcurrency(t *testing.T) {
	p := &probe{}
	r := register(t, nil, gatedSet(p))
	approved := &tool.Context{Approval: &tool.Approval{Status: "approved", OverrideArguments: json.RawMessage(`{"value":"v"}`)}}
	var wg sync.WaitGroup
	rets := make([]tool.Return, 16)
	for i := range rets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rets[i] = execute(r, approved, "write", `{"value":"x"}`)
		}()
	}
	wg.Wait()
	for _, ret := range rets {
		wantSuccess(t, ret)
	}
	if p.count() != len(rets) {
		t.Fatalf("calls = %d", p.count())
	}
}
