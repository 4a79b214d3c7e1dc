package toolset_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestPrefixedNamesToolsToolsetAndGroups(t *testing.T) {
	p := &probe{}
	inner := toolset.New("fs", echo("read", p), echo("write", nil)).WithID("fs_id").WithInstruction("files", "Use read first.")
	ts := toolset.Prefixed("ws", inner)

	if ts.Name() != "ws_fs" || ts.ID() != "ws_fs_id" {
		t.Fatalf("name/id = %q/%q", ts.Name(), ts.ID())
	}
	if got := names(t, ts, nil); !slices.Equal(got, []string{"ws_read", "ws_write"}) {
		t.Fatalf("tools = %v", got)
	}
	if got := ts.Instructions(nil); !slices.Equal(got, []toolset.Instruction{{Group: "ws_files", Content: "Use read first."}}) {
		t.Fatalf("instructions = %v", got)
	}
	d := definition(t, ts, "ws_read")
	if d.Description != "Echo for read" || d.Parameters["type"] != "object" {
		t.Fatalf("definition lost its description or schema: %+v", d)
	}
	if _, has := d.Metadata[tool.MetaOriginalName]; has {
		t.Fatal("prefixing must not record original_tool_name")
	}
	if got := names(t, inner, nil); !slices.Equal(got, []string{"read", "write"}) {
		t.Fatalf("inner toolset changed: %v", got)
	}

	r := register(t, nil, ts)
	ret := execute(r, nil, "ws_read", `{"value":"x"}`)
	wantSuccess(t, ret)
	if p.count() != 1 || content(t, ret)["value"] != "x" {
		t.Fatalf("calls=%d content=%v", p.count(), ret.Content)
	}
	if e, _ := r.Entry("ws_read"); e.Toolset != "ws_fs" || e.ToolsetID != "ws_fs_id" {
		t.Fatalf("entry toolset = %q/%q", e.Toolset, e.ToolsetID)
	}
}

func TestPrefixedWithoutIDHasNoID(t *testing.T) {
	if id := toolset.Prefixed("p", toolset.New("s")).ID(); id != "" {
		t.Fatalf("ID = %q, want none", id)
	}
}

func TestPrefixedKeepsTimeoutAndToolsetDefaults(t *testing.T) {
	ts := toolset.Prefixed("p", toolset.New("s", blocking("own", nil).WithTimeout(shortTimeout), blocking("inherits", nil)).WithTimeout(shortTimeout*2).WithMaxRetries(1))
	if d := ts.Defaults(); d.Timeout != shortTimeout*2 || d.MaxRetries == nil || *d.MaxRetries != 1 {
		t.Fatalf("defaults not forwarded: %+v", d)
	}
	r := register(t, nil, ts)

	ret := execute(r, nil, "p_own", `{}`)
	wantKind(t, ret, tool.ErrorKindTimeout)
	if got := content(t, ret)["timeout_ms"]; got != shortTimeout.Milliseconds() {
		t.Fatalf("timeout_ms = %v, want the tool's own", got)
	}
	ret = execute(r, nil, "p_inherits", `{}`)
	wantKind(t, ret, tool.ErrorKindTimeout)
	if got := content(t, ret)["timeout_ms"]; got != (shortTimeout * 2).Milliseconds() {
		t.Fatalf("timeout_ms = %v, want the toolset's", got)
	}
}

func TestPrefixedEmptyPrefixFails(t *testing.T) {
	_, err := toolset.Prefixed("", toolset.New("s", echo("a", nil))).Tools(nil)
	if err == nil || !strings.Contains(err.Error(), "prefix") {
		t.Fatalf("Tools error = %v", err)
	}
}

func TestPrefixedForwardsInnerErrors(t *testing.T) {
	_, err := toolset.Prefixed("p", toolset.New("s", nil)).Tools(nil)
	if err == nil || !strings.Contains(err.Error(), "nil tool") {
		t.Fatalf("Tools error = %v", err)
	}
}

func TestCheckPrefix(t *testing.T) {
	if err := toolset.CheckPrefix("docs", "p"); err != nil {
		t.Fatal(err)
	}
	err := toolset.CheckPrefix("docs", "")
	if err == nil || err.Error() != `toolset "docs": prefixed needs a non-empty prefix` || !errors.Is(err, tool.ErrInvalidOption) {
		t.Fatalf("empty prefix: %v", err)
	}
}
