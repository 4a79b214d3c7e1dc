package bridge

import (
	"bytes"
	"errors"

	"github.com/starweaver-go/starweaver/core/env"
)

// environmentSpec is an environment as a host gives it (the agent spec's
// "environment", sw_session_set_environment):
//
//	{"kind": "virtual", "id"?, "files"?: {path: text},
//	 "shell_outputs"?: {command: {"exit_code", "stdout", "stderr"}}, "read_only"?}
//	{"kind": "local", "root": path, "id"?, "read_only"?, "shell"?: {"allow_execute", "allowed_programs"},
//	 "sandbox"?: bool, "sandbox_read_only"?: [path], "allow_hard_links"?: bool}
//
// Each kind takes only its own fields; anything else is an invalid_spec.
type environmentSpec struct {
	Kind         string                     `json:"kind"`
	ID           string                     `json:"id"`
	Files        map[string]string          `json:"files"`
	ShellOutputs map[string]shellOutputSpec `json:"shell_outputs"`
	ReadOnly     bool                       `json:"read_only"`
	Root         string                     `json:"root"`
	// Shell is the local environment's shell policy; it is kept for the
	// local shell, which runs commands under it (see localShell).
	Shell *shellPolicySpec `json:"shell"`
	// Sandbox false runs the local shell's commands outside the sandbox
	// (unsafe, see env.LocalShellOptions.Unsandboxed).
	Sandbox *bool `json:"sandbox"`
	// SandboxReadOnly: host paths a sandboxed command may read (see
	// env.LocalShellOptions.SandboxReadOnly).
	SandboxReadOnly []string `json:"sandbox_read_only"`
	// AllowHardLinks lets the local environment read and write files with
	// several hard links (see env.LocalOptions.AllowHardLinks).
	AllowHardLinks bool `json:"allow_hard_links"`
}

// shellOutputSpec is a virtual environment's canned command output.
type shellOutputSpec struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// shellPolicySpec is env.ShellPolicy as a host gives it.
type shellPolicySpec struct {
	AllowExecute    bool     `json:"allow_execute"`
	AllowedPrograms []string `json:"allowed_programs"`
}

func (s shellPolicySpec) policy() env.ShellPolicy {
	return env.ShellPolicy{AllowExecute: s.AllowExecute, AllowedPrograms: s.AllowedPrograms}
}

// decodeEnvironment decodes and builds an environment spec; JSON null (or
// nothing) is no environment.
func decodeEnvironment(data []byte) (env.Provider, error) {
	if len(bytes.TrimSpace(data)) == 0 || bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil, nil
	}
	var s environmentSpec
	if err := decodeStrict(data, &s); err != nil {
		return nil, err
	}
	return s.build()
}

// build makes the provider s describes.
func (s environmentSpec) build() (env.Provider, error) {
	only := func(kind string, fields map[string]bool) error {
		for name, set := range fields {
			if set {
				return specError("environment: %q is not a field of a %s environment", name, kind)
			}
		}
		return nil
	}
	switch s.Kind {
	case "virtual":
		if err := only("virtual", map[string]bool{"root": s.Root != "", "shell": s.Shell != nil, "sandbox": s.Sandbox != nil, "sandbox_read_only": s.SandboxReadOnly != nil, "allow_hard_links": s.AllowHardLinks}); err != nil {
			return nil, err
		}
		v := env.NewVirtual(s.ID)
		for p, text := range s.Files {
			if _, err := env.Clean(p); err != nil {
				return nil, specError("environment: file %v", err)
			}
			v.WithFile(p, text)
		}
		for cmd, out := range s.ShellOutputs {
			v.WithShellOutput(cmd, env.Output{ExitCode: out.ExitCode, Stdout: out.Stdout, Stderr: out.Stderr})
		}
		if s.ReadOnly {
			v.ReadOnly()
		}
		return v, nil
	case "local":
		if err := only("local", map[string]bool{"files": s.Files != nil, "shell_outputs": s.ShellOutputs != nil}); err != nil {
			return nil, err
		}
		if s.Root == "" {
			return nil, specError(`environment: a local environment needs a "root" directory`)
		}
		l, err := env.NewLocal(s.Root, env.LocalOptions{ID: s.ID, ReadOnly: s.ReadOnly, AllowHardLinks: s.AllowHardLinks})
		if err != nil {
			return nil, specError("environment: %v", err)
		}
		var policy env.ShellPolicy
		if s.Shell != nil {
			policy = s.Shell.policy()
		}
		return localShell(l, policy, env.LocalShellOptions{Unsandboxed: s.Sandbox != nil && !*s.Sandbox, SandboxReadOnly: s.SandboxReadOnly})
	case "":
		return nil, specError(`environment: "kind" is required ("virtual" or "local")`)
	default:
		return nil, specError("environment: unknown kind %q (want \"virtual\" or \"local\")", s.Kind)
	}
}

// localShell attaches a local shell, rooted at the environment's root and
// running commands under policy, to a local environment: the result is a
// provider that is also an env.Shell and env.Processes, as the shell tools
// look for. The zero policy runs nothing.
func localShell(l *env.Local, policy env.ShellPolicy, opts env.LocalShellOptions) (env.Provider, error) {
	sh, err := env.NewLocalShell(l.Root(), policy, opts)
	if err != nil {
		return nil, specError("environment: shell: %v", err)
	}
	return &localWithShell{Local: l, LocalShell: sh}, nil
}

// localWithShell is a local environment with its shell.
type localWithShell struct {
	*env.Local
	*env.LocalShell
}

// Close stops the shell's processes and releases the environment.
func (p *localWithShell) Close() error {
	return errors.Join(p.LocalShell.Close(), p.Local.Close())
}
