package toolset_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// NewStatic builds the toolset the With chain builds from the same
// settings: the same tools, instructions and inherited defaults.
func TestNewStaticMatchesTheChain(t *testing.T) {
	a, b := echo("a", nil), echo("b", nil)
	retries := 3
	chain := toolset.New("basic", a, b).
		WithID("basic_id").
		WithInstruction("", "Prefer exact lookup.").
		WithInstruction("other", "Shared.").
		WithMaxRetries(retries).
		WithTimeout(2 * time.Second).
		WithMaxConcurrency(4)
	if err := chain.Err(); err != nil {
		t.Fatal(err)
	}
	built, err := toolset.NewStatic("basic", toolset.StaticOptions{
		ID:             "basic_id",
		Tools:          []tool.Tool{a, b},
		Instructions:   []toolset.Instruction{{Content: "Prefer exact lookup."}, {Group: "other", Content: "Shared."}},
		MaxRetries:     &retries,
		Timeout:        2 * time.Second,
		MaxConcurrency: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	if built.Name() != chain.Name() || built.ID() != chain.ID() {
		t.Fatalf("name/id %q/%q, want %q/%q", built.Name(), built.ID(), chain.Name(), chain.ID())
	}
	gotTools, err := built.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantTools, _ := chain.Tools(nil)
	if !reflect.DeepEqual(gotTools, wantTools) {
		t.Fatalf("tools %v, want %v", gotTools, wantTools)
	}
	if got, want := built.Instructions(nil), chain.Instructions(nil); !reflect.DeepEqual(got, want) {
		t.Fatalf("instructions %v, want %v", got, want)
	}
	got, want := built.Defaults(), chain.Defaults()
	if *got.MaxRetries != *want.MaxRetries || got.Timeout != want.Timeout || got.Concurrency == nil || want.Concurrency == nil {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
}

// The zero StaticOptions is an empty toolset that sets no defaults.
func TestNewStaticZeroOptions(t *testing.T) {
	s, err := toolset.NewStatic("empty", toolset.StaticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := s.Tools(nil)
	if err != nil || len(tools) != 0 || len(s.Instructions(nil)) != 0 || s.ID() != "" {
		t.Fatalf("%v %v %v %q", tools, err, s.Instructions(nil), s.ID())
	}
	if d := s.Defaults(); d.MaxRetries != nil || d.Timeout != 0 || d.Concurrency != nil {
		t.Fatalf("defaults %+v", d)
	}
}

// A building problem is returned by NewStatic, with the message the
// chain's Err reports.
func TestNewStaticReturnsBuildingErrors(t *testing.T) {
	neg := -1
	a := echo("a", nil)
	for name, c := range map[string]struct {
		name  string
		o     toolset.StaticOptions
		chain *toolset.Static
	}{
		"blank name":  {"", toolset.StaticOptions{}, toolset.New("")},
		"nil tool":    {"ts", toolset.StaticOptions{Tools: []tool.Tool{nil}}, toolset.New("ts").WithTool(nil)},
		"duplicate":   {"ts", toolset.StaticOptions{Tools: []tool.Tool{a, a}}, toolset.New("ts", a, a)},
		"retries":     {"ts", toolset.StaticOptions{MaxRetries: &neg}, toolset.New("ts").WithMaxRetries(-1)},
		"timeout":     {"ts", toolset.StaticOptions{Timeout: -time.Second}, toolset.New("ts").WithTimeout(-time.Second)},
		"concurrency": {"ts", toolset.StaticOptions{MaxConcurrency: -1}, toolset.New("ts").WithMaxConcurrency(-1)},
	} {
		s, err := toolset.NewStatic(c.name, c.o)
		if s != nil || err == nil || c.chain.Err() == nil || err.Error() != c.chain.Err().Error() {
			t.Errorf("%s: %v, %v (chain: %v)", name, s, err, c.chain.Err())
		}
	}
}
