package toolset_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestCombinedUnionAndInstructions(t *testing.T) {
	a := toolset.New("a", echo("a1", nil), echo("a2", nil)).WithInstruction("ga", "A")
	b := toolset.New("b", echo("b1", nil)).WithInstruction("gb", "B")
	ts := toolset.Combined("all", a, b)
	if ts.Name() != "all" || ts.ID() != "" || !ts.Defaults().IsZero() {
		t.Fatalf("name/id/defaults = %q/%q/%+v", ts.Name(), ts.ID(), ts.Defaults())
	}
	if got := names(t, ts, nil); !slices.Equal(got, []string{"a1", "a2", "b1"}) {
		t.Fatalf("tools = %v", got)
	}
	want := []toolset.Instruction{{Group: "ga", Content: "A"}, {Group: "gb", Content: "B"}}
	if got := ts.Instructions(nil); !slices.Equal(got, want) {
		t.Fatalf("instructions = %v", got)
	}
	r := register(t, nil, ts)
	wantSuccess(t, execute(r, nil, "b1", `{"value":"x"}`))
	if e, _ := r.Entry("b1"); e.Toolset != "all" {
		t.Fatalf("entry toolset = %q", e.Toolset)
	}
}

func TestCombinedDuplicateNamesToolAndBothToolsets(t *testing.T) {
	ts := toolset.Combined("all", toolset.New("docs", echo("lookup", nil)), toolset.New("web", echo("lookup", nil)))
	_, err := ts.Tools(nil)
	var dup *toolset.DuplicateError
	if !errors.As(err, &dup) || dup.Tool != "lookup" || dup.First != "docs" || dup.Second != "web" {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{`"lookup"`, `"docs"`, `"web"`} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("message %q does not mention %s", err, s)
		}
	}
}

func TestCombinedMemberErrorNamesTheMember(t *testing.T) {
	_, err := toolset.Combined("all", toolset.New("ok"), toolset.New("broken", nil)).Tools(nil)
	if err == nil || !strings.Contains(err.Error(), `"broken"`) || !strings.Contains(err.Error(), "nil tool") {
		t.Fatalf("err = %v", err)
	}
}

func TestCombinedKeepsEachMembersDefaults(t *testing.T) {
	slow := toolset.New("slow", blocking("slow_inherits", nil), blocking("slow_own", nil).WithTimeout(shortTimeout)).WithTimeout(shortTimeout * 2)
	strict := toolset.New("strict", echo("strict_echo", nil)).WithMaxRetries(1)
	plain := toolset.New("plain", echo("plain_echo", nil))
	ts := toolset.Prefixed("p", toolset.Combined("all", slow, strict, plain))
	r := register(t, nil, ts)

	checks := []struct {
		name    string
		timeout time.Duration
		retries int
	}{
		{"p_slow_inherits", shortTimeout * 2, tool.DefaultMaxRetries},
		{"p_slow_own", shortTimeout, tool.DefaultMaxRetries},
		{"p_strict_echo", 0, 1},
		{"p_plain_echo", 0, tool.DefaultMaxRetries},
	}
	for _, c := range checks {
		if got := r.TimeoutFor(c.name); got != c.timeout {
			t.Errorf("TimeoutFor(%s) = %v, want %v", c.name, got, c.timeout)
		}
		if got := r.MaxRetriesFor(c.name); got != c.retries {
			t.Errorf("MaxRetriesFor(%s) = %d, want %d", c.name, got, c.retries)
		}
	}
	ret := execute(r, nil, "p_slow_inherits", `{}`)
	wantKind(t, ret, tool.ErrorKindTimeout)
	if got := ret.Metadata["timeout_ms"]; got != (shortTimeout * 2).Milliseconds() {
		t.Fatalf("timeout_ms = %v", got)
	}
}
