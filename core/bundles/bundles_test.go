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
