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

func TestStaticHoldsToolsInstructionsAndDefaults(t *testing.T) {
	s := toolset.New("basic", echo("a", nil)).
		WithID("basic_id").
		WithTool(echo("b", nil)).
		WithTools(echo("c", nil), echo("d", nil)).
		WithInstruction("basic", "Prefer exact lookup.").
		WithInstruction("", "Defaults to the toolset name.").
		WithMaxRetries(2).
		WithTimeout(time.Second)
	if err := s.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	if s.Name() != "basic" || s.ID() != "basic_id" {
		t.Fatalf("name/id = %q/%q", s.Name(), s.ID())
	}
	if got := names(t, s, nil); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("tools = %v", got)
	}
	want := []toolset.Instruction{{Group: "basic", Content: "Prefer exact lookup."}, {Group: "basic", Content: "Defaults to the toolset name."}}
	if got := s.Instructions(nil); !slices.Equal(got, want) {
		t.Fatalf("instructions = %v", got)
	}
	d := s.Defaults()
	if d.MaxRetries == nil || *d.MaxRetries != 2 || d.Timeout != time.Second {
		t.Fatalf("defaults = %+v", d)
	}
	*d.MaxRetries = 9 // a copy: the toolset must not change
	if *s.Defaults().MaxRetries != 2 {
		t.Fatal("Defaults returned the toolset's own pointer")
	}
}

func TestStaticToolsReturnsACopy(t *testing.T) {
	s := toolset.New("s", echo("a", nil), echo("b", nil))
	tools, _ := s.Tools(nil)
	tools[0] = echo("z", nil)
	if got := names(t, s, nil); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("tools after mutating a returned slice = %v", got)
	}
}

func TestStaticDuplicateNameIsABuildError(t *testing.T) {
	first := echo("lookup", nil)
	s := toolset.New("docs", first, echo("lookup", nil))
	err := s.Err()
	var dup *toolset.DuplicateError
	if !errors.As(err, &dup) || dup.Tool != "lookup" || dup.First != "docs" || dup.Second != "docs" {
		t.Fatalf("Err = %v, want a DuplicateError for lookup in docs", err)
	}
	if !errors.Is(err, tool.ErrDuplicateTool) {
		t.Fatalf("Err does not wrap tool.ErrDuplicateTool: %v", err)
	}
	if !strings.Contains(err.Error(), `"lookup"`) || !strings.Contains(err.Error(), `"docs"`) {
		t.Fatalf("message does not name tool and toolset: %v", err)
	}
	if _, terr := s.Tools(nil); !errors.Is(terr, err) {
		t.Fatalf("Tools error = %v, want the build error", terr)
	}
	r := &tool.Registry{}
	if rerr := toolset.Register(r, nil, s); !errors.As(rerr, &dup) {
		t.Fatalf("Register error = %v, want the duplicate", rerr)
	}
	if r.Len() != 0 {
		t.Fatalf("registry holds %v after a failed Register", r.Names())
	}
}

func TestStaticBuildErrors(t *testing.T) {
	cases := map[string]struct {
		s    *toolset.Static
		want string
	}{
		"nil tool":         {toolset.New("s", nil), "nil tool"},
		"blank name":       {toolset.New(""), "name must not be empty"},
		"negative retries": {toolset.New("s").WithMaxRetries(-1), `toolset "s": tool: invalid option: max_retries must not be negative, got -1`},
		"negative timeout": {toolset.New("s").WithTimeout(-time.Second), "timeout_ms must be positive, got -1000"},
		"zero timeout":     {toolset.New("s").WithTimeout(0), "timeout_ms must be positive, got 0"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if err := c.s.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestStaticWithInstructionsJoinsOneBlock(t *testing.T) {
	s := toolset.New("notes").WithInstructions().WithInstructions("First.", "Second.")
	want := []toolset.Instruction{{Group: "notes", Content: "First.\n\nSecond."}}
	if got := s.Instructions(nil); !slices.Equal(got, want) {
		t.Fatalf("Instructions = %#v, want %#v", got, want)
	}
}

func TestStaticFirstBuildErrorIsKept(t *testing.T) {
	s := toolset.New("s", nil).WithMaxRetries(-1)
	if err := s.Err(); !strings.Contains(err.Error(), "nil tool") {
		t.Fatalf("Err = %v, want the first error", err)
	}
}

func TestStaticDefaultsReachTheRegistry(t *testing.T) {
	own := blocking("own", nil).WithTimeout(shortTimeout).WithMaxRetries(5)
	s := toolset.New("slow", blocking("inherits", nil), own).
		WithID("slow_id").WithTimeout(shortTimeout * 2).WithMaxRetries(1)
	r := register(t, nil, s)

	e, ok := r.Entry("inherits")
	if !ok || e.Toolset != "slow" || e.ToolsetID != "slow_id" || e.Timeout != shortTimeout*2 || e.MaxRetries == nil || *e.MaxRetries != 1 {
		t.Fatalf("entry = %+v", e)
	}
	if got := r.TimeoutFor("inherits"); got != shortTimeout*2 {
		t.Fatalf("TimeoutFor(inherits) = %v", got)
	}
	if got := r.TimeoutFor("own"); got != shortTimeout {
		t.Fatalf("TimeoutFor(own) = %v, the tool's value must win", got)
	}
	if got := r.MaxRetriesFor("inherits"); got != 1 {
		t.Fatalf("MaxRetriesFor(inherits) = %d", got)
	}
	if got := r.MaxRetriesFor("own"); got != 5 {
		t.Fatalf("MaxRetriesFor(own) = %d", got)
	}
	ret := execute(r, nil, "inherits", `{}`)
	wantKind(t, ret, tool.ErrorKindTimeout)
	if got := ret.Metadata["timeout_ms"]; got != (shortTimeout * 2).Milliseconds() {
		t.Fatalf("timeout_ms = %v", got)
	}
}

func TestStaticMaxConcurrencyCapsEachToolAcrossRegistrations(t *testing.T) {
	own := tool.New("own", "", nil, nil).WithMaxConcurrency(5)
	ts := toolset.New("s", tool.New("a", "", nil, nil), tool.New("b", "", nil, nil), own).WithMaxConcurrency(2)
	if err := toolset.New("bad").WithMaxConcurrency(0).Err(); err == nil {
		t.Fatal("a limit of 0 was accepted")
	}
	r1, r2 := &tool.Registry{}, &tool.Registry{}
	for _, r := range []*tool.Registry{r1, r2} {
		if err := toolset.Register(r, nil, ts); err != nil {
			t.Fatal(err)
		}
	}
	if r1.MaxConcurrencyFor("a") != 2 || r1.MaxConcurrencyFor("own") != 5 {
		t.Fatalf("limits a=%d own=%d", r1.MaxConcurrencyFor("a"), r1.MaxConcurrencyFor("own"))
	}
	e1, _ := r1.Entry("a")
	e2, _ := r2.Entry("a")
	eb, _ := r1.Entry("b")
	if e1.Concurrency == nil || e1.Concurrency != e2.Concurrency || e1.Concurrency == eb.Concurrency {
		t.Fatal("the runs of a toolset do not share one Limiter per tool")
	}
	// Combined carries a member's caps in the tools' configuration.
	tools, err := toolset.Combined("c", ts).Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	if tool.ConfigOf(tools[0]).Concurrency != e1.Concurrency {
		t.Fatal("Combined lost the member's cap")
	}
}
