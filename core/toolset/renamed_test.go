package toolset_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestRenamedDefinitionAndExecution(t *testing.T) {
	p := &probe{}
	ts := toolset.Renamed(toolset.New("s", echo("lookup", p), echo("other", nil)), map[string]string{"lookup": "find", "missing": "x"})
	if got := names(t, ts, nil); !slices.Equal(got, []string{"find", "other"}) {
		t.Fatalf("tools = %v", got)
	}
	d := definition(t, ts, "find")
	if d.Metadata[tool.MetaOriginalName] != "lookup" || d.Description != "Echo for lookup" {
		t.Fatalf("definition = %+v", d)
	}
	if _, has := definition(t, ts, "other").Metadata[tool.MetaOriginalName]; has {
		t.Fatal("an unmapped tool got original_tool_name")
	}

	r := register(t, nil, ts)
	ret := execute(r, nil, "find", `{"value":"v"}`)
	wantSuccess(t, ret)
	if ret.Metadata["ran"] != "lookup" || p.count() != 1 {
		t.Fatalf("the original tool did not run: %v, calls %d", ret.Metadata, p.count())
	}
	if p.names[0] != "find" {
		t.Fatalf("tc.ToolName = %q, want the called name", p.names[0])
	}
	wantKind(t, execute(r, nil, "lookup", `{"value":"v"}`), tool.ErrorKindNotFound)
}

func TestRenamedTwiceKeepsTheFirstOriginalName(t *testing.T) {
	ts := toolset.Renamed(toolset.Renamed(toolset.New("s", echo("a", nil)), map[string]string{"a": "b"}), map[string]string{"b": "c"})
	if got := definition(t, ts, "c").Metadata[tool.MetaOriginalName]; got != "a" {
		t.Fatalf("original_tool_name = %v", got)
	}
}

func TestRenamedKeepsValidatorsAndTimeout(t *testing.T) {
	p := &probe{}
	validated := echo("strict", p).WithArgumentValidator(func(_ *tool.Context, args map[string]any) error {
		if args["value"] == "bad" {
			return tool.InvalidArguments("value must not be bad")
		}
		return nil
	})
	ts := toolset.Renamed(toolset.New("s", validated, blocking("slow", nil).WithTimeout(shortTimeout)),
		map[string]string{"strict": "checked", "slow": "sluggish"})
	r := register(t, nil, ts)

	ret := execute(r, nil, "checked", `{"value":"bad"}`)
	wantKind(t, ret, tool.ErrorKindInvalidArguments)
	if !strings.Contains(content(t, ret)["message"].(string), "must not be bad") || p.count() != 0 {
		t.Fatalf("validator did not reject before running: %v, calls %d", ret.Content, p.count())
	}
	wantKind(t, execute(r, nil, "checked", `{}`), tool.ErrorKindInvalidArguments) // schema still applies
	wantSuccess(t, execute(r, nil, "checked", `{"value":"good"}`))
	if p.count() != 1 {
		t.Fatalf("calls = %d", p.count())
	}

	ret = execute(r, nil, "sluggish", `{}`)
	wantKind(t, ret, tool.ErrorKindTimeout)
	if got := ret.Metadata["timeout_ms"]; got != shortTimeout.Milliseconds() {
		t.Fatalf("timeout_ms = %v", got)
	}
}

func TestRenamedCollisionIsAnError(t *testing.T) {
	_, err := toolset.Renamed(toolset.New("s", echo("a", nil), echo("b", nil)), map[string]string{"a": "b"}).Tools(nil)
	var dup *toolset.DuplicateError
	if !errors.As(err, &dup) || dup.Tool != "b" {
		t.Fatalf("err = %v, want a duplicate of b", err)
	}
	_, err = toolset.Renamed(toolset.New("s", echo("a", nil), echo("b", nil)), map[string]string{"a": "b", "b": "a"}).Tools(nil)
	if err != nil {
		t.Fatalf("swapping names failed: %v", err)
	}
}

func TestRenamedToEmptyNameIsAnError(t *testing.T) {
	_, err := toolset.Renamed(toolset.New("s", echo("a", nil)), map[string]string{"a": ""}).Tools(nil)
	if err == nil || !strings.Contains(err.Error(), "empty name") {
		t.Fatalf("err = %v", err)
	}
}

func TestRenamedCopiesTheMap(t *testing.T) {
	m := map[string]string{"a": "b"}
	ts := toolset.Renamed(toolset.New("s", echo("a", nil)), m)
	m["a"] = "z"
	if got := names(t, ts, nil); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("tools = %v", got)
	}
}
