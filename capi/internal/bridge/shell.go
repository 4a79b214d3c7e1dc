package bridge

import (
	"context"
	"sync"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// shellSpec is an agent spec's "shell": a local shell its runs reach as
// the named dependency env.ShellCapability (see sw_agent_new).
type shellSpec struct {
	Root string `json:"root"`
	shellPolicySpec
	MaxProcesses    *int `json:"max_processes"`
	MaxCaptureBytes *int `json:"max_capture_bytes"`
	// Sandbox false runs commands outside the sandbox (unsafe, see
	// env.LocalShellOptions.Unsandboxed); absent or true keeps it.
	Sandbox *bool `json:"sandbox"`
	// SandboxReadOnly: host paths a sandboxed command may read (see
	// env.LocalShellOptions.SandboxReadOnly).
	SandboxReadOnly []string `json:"sandbox_read_only"`
}

// provide creates the shell and adds it to deps.
func (s *shellSpec) provide(deps *tool.Deps) (*env.LocalShell, error) {
	if s == nil {
		return nil, nil
	}
	if s.Root == "" {
		return nil, specError("shell: root is required")
	}
	var opts env.LocalShellOptions
	if err := (env.ShellLimits{MaxProcesses: s.MaxProcesses, MaxCaptureBytes: s.MaxCaptureBytes}).Apply(&opts); err != nil {
		return nil, optionError(err)
	}
	opts.Unsandboxed = s.Sandbox != nil && !*s.Sandbox
	opts.SandboxReadOnly = s.SandboxReadOnly
	sh, err := env.NewLocalShell(s.Root, s.policy(), opts)
	if err != nil {
		return nil, specError("shell: %v", err)
	}
	deps.SetNamed(env.ShellCapability, sh)
	return sh, nil
}

// liveShells are the local shells of live agent and session handles: an
// agent's own (its spec's "shell") and those of the local environments it
// or a session was given. Releasing the handle (or sw_shutdown) closes
// them, killing their processes.
var liveShells = struct {
	mu sync.Mutex
	m  map[any][]*env.LocalShell
}{m: map[any][]*env.LocalShell{}}

// keepShells records the shells of owner (an *agent.Agent or an
// *agent.Session); nil ones are skipped.
func keepShells(owner any, shells ...*env.LocalShell) {
	liveShells.mu.Lock()
	defer liveShells.mu.Unlock()
	for _, sh := range shells {
		if sh != nil {
			liveShells.m[owner] = append(liveShells.m[owner], sh)
		}
	}
}

// environmentShell returns the local shell of an environment provider
// (a local environment's, see localShell), or nil.
func environmentShell(p env.Provider) *env.LocalShell {
	if l, ok := p.(*localWithShell); ok {
		return l.LocalShell
	}
	return nil
}

// releaseShell closes the shells of a released agent or session handle.
func releaseShell(v any) {
	switch v.(type) {
	case *agent.Agent, *agent.Session:
	default:
		return
	}
	liveShells.mu.Lock()
	shells := liveShells.m[v]
	delete(liveShells.m, v)
	liveShells.mu.Unlock()
	for _, sh := range shells {
		sh.Close()
	}
}

// closeShells closes every shell of a live handle (sw_shutdown).
func closeShells() {
	liveShells.mu.Lock()
	all := liveShells.m
	liveShells.m = map[any][]*env.LocalShell{}
	liveShells.mu.Unlock()
	for _, shells := range all {
		for _, sh := range shells {
			sh.Close()
		}
	}
}

// withRunScope puts a process scope in a run's context: the background
// processes its shell tools start join it. end kills them when the run was
// cancelled or failed by its host (its context ended before it returned);
// those of a run that returned by itself stay with the session.
func withRunScope(ctx context.Context) (scoped context.Context, end func()) {
	scope := &env.ProcessScope{}
	return env.WithProcessScope(ctx, scope), func() {
		if ctx.Err() != nil {
			scope.Kill()
		}
	}
}
