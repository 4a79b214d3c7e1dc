package bundles_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/bundles"
	"github.com/starweaver-go/starweaver/core/env"
)

func TestNewByName(t *testing.T) {
	names := bundles.Names()
	if !slices.IsSorted(names) || len(names) != 3 {
		t.Fatalf("names %v", names)
	}
	for _, name := range names {
		ts, err := bundles.New(name, bundles.Options{})
		if err != nil || ts.Name() != name {
			t.Errorf("%s: %v %v", name, ts, err)
		}
	}
	if ts, err := bundles.New("shell", bundles.Options{ShellPolicy: &env.ShellPolicy{}}); err != nil || ts.Name() != "shell" {
		t.Errorf("shell with a policy: %v", err)
	}
	for name, want := range map[string]string{
		"bogus":      `unknown toolset bundle "bogus"`,
		"filesystem": `toolset bundle "filesystem" takes no policy`,
		"nothing":    `toolset bundle "nothing" takes no policy`,
	} {
		var opts bundles.Options
		if name != "bogus" {
			opts.ShellPolicy = &env.ShellPolicy{AllowExecute: true}
		}
		_, err := bundles.New(name, opts)
		if err == nil || err.Error() != want || !errors.Is(err, bundles.ErrInvalid) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// The core bundles are bundles New knows, each new per call, and never
// ask_user_question: hosts opt in to it with UserInput.
func TestCoreLeavesUserInputOut(t *testing.T) {
	core := bundles.CoreNames()
	for _, n := range core {
		if !slices.Contains(bundles.Names(), n) {
			t.Errorf("core bundle %q is no bundle", n)
		}
	}
	if slices.Contains(core, "user_input") {
		t.Fatalf("core %v holds user_input", core)
	}
	a, b := bundles.Core(), bundles.Core()
	if len(a) != len(core) || a[0] == b[0] {
		t.Fatalf("Core() = %v: one new toolset per core bundle and call", a)
	}
	for i, ts := range a {
		if ts.Name() != core[i] {
			t.Errorf("Core()[%d] = %q, want %q", i, ts.Name(), core[i])
		}
		tools, err := ts.Tools(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if tl.Definition().Name == "ask_user_question" {
				t.Errorf("core toolset %q offers ask_user_question", ts.Name())
			}
		}
	}
	if bundles.UserInput().Name() != "user_input" {
		t.Fatal("UserInput is not the user_input bundle")
	}
}
