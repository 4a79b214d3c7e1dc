// Package bundles names the first-party toolsets, so that a host can ask
// for one by name: "filesystem" ([filesystem.Tools]), "shell"
// ([shell.Tools]) and "user_input" ([userinput.Tools]). It is to those
// packages what [database/sql.Open] is to drivers: one lookup, by name,
// that decides which names exist. A new bundle gains one case here.
package bundles

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/bundles/filesystem"
	"github.com/starweaver-go/starweaver/core/bundles/shell"
	"github.com/starweaver-go/starweaver/core/bundles/userinput"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/internal/optionerr"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// ErrInvalid is matched by the error of New for a name that is no bundle
// or options the bundle does not take. The error's message says which
// (`unknown toolset bundle "x"`, `toolset bundle "filesystem" takes no
// policy`).
var ErrInvalid = errors.New("bundles: invalid bundle")

// Options are what a host may give a bundle by name.
type Options struct {
	// ShellPolicy narrows the "shell" bundle (shell.Options.Policy); the
	// other bundles take none.
	ShellPolicy *env.ShellPolicy
}

// Names returns the names New knows, sorted.
func Names() []string {
	return []string{filesystem.ToolsetName, shell.ToolsetName, userinput.ToolsetName}
}

// CoreNames returns the names of the core bundles, in the order Core
// gives them: the environment bundles ("filesystem", "shell"). The
// "user_input" bundle is not among them (see UserInput).
func CoreNames() []string {
	return []string{filesystem.ToolsetName, shell.ToolsetName}
}

// Core returns new toolsets of the core bundles (CoreNames), each with
// its defaults: the standard first-party toolsets of an agent that works
// in an environment. Their tools resolve the environment (and the shell)
// from the run, so the same toolsets serve virtual, local and sandboxed
// environments.
//
// ask_user_question is deliberately not included: a host opts in with
// UserInput only when it can resolve the approvals its questions wait on.
func Core() []toolset.Toolset {
	names := CoreNames()
	out := make([]toolset.Toolset, 0, len(names))
	for _, n := range names {
		ts, err := New(n, Options{})
		if err != nil {
			panic("bundles: core bundle " + n + ": " + err.Error()) // CoreNames names New's own cases
		}
		out = append(out, ts)
	}
	return out
}

// UserInput returns a new "user_input" toolset (ask_user_question), the
// opt-in bundle Core leaves out: its questions pause the run as approvals,
// so only a host that resolves them should install it.
func UserInput() *toolset.Static { return userinput.Tools() }

// New returns a new toolset of the bundle name (each call a new one). An
// unknown name, or a ShellPolicy for a bundle other than "shell", fails
// with an error matching [ErrInvalid].
func New(name string, opts Options) (*toolset.Static, error) {
	if opts.ShellPolicy != nil && name != shell.ToolsetName {
		return nil, optionerr.New(ErrInvalid, "toolset bundle %q takes no policy", name)
	}
	switch name {
	case userinput.ToolsetName:
		return userinput.Tools(), nil
	case shell.ToolsetName:
		return shell.Tools(shell.Options{Policy: opts.ShellPolicy}), nil
	case filesystem.ToolsetName:
		return filesystem.Tools(), nil
	}
	return nil, optionerr.New(ErrInvalid, "unknown toolset bundle %q", name)
}
