package main

import (
	"sync"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// shellSpec is an agent spec's "shell": a local shell its runs reach as
// the named dependency env.ShellCapability (see sw_agent_new).
type shellSpec struct {
	Root            string   `json:"root"`
	AllowExecute    bool     `json:"allow_execute"`
	AllowedPrograms []string `json:"allowed_programs"`
	MaxProcesses    *int     `json:"max_processes"`
	MaxCaptureBytes *int     `json:"max_capture_bytes"`
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
	for name, v := range map[string]*int{"max_processes": s.MaxProcesses, "max_capture_bytes": s.MaxCaptureBytes} {
		if v != nil && *v <= 0 {
			return nil, specError("shell: %s must be positive, got %d", name, *v)
		}
	}
	if s.MaxProcesses != nil {
		opts.MaxProcesses = *s.MaxProcesses
	}
	if s.MaxCaptureBytes != nil {
		opts.MaxCaptureBytes = *s.MaxCaptureBytes
	}
	sh, err := env.NewLocalShell(s.Root, env.ShellPolicy{AllowExecute: s.AllowExecute, AllowedPrograms: s.AllowedPrograms}, opts)
	if err != nil {
		return nil, specError("shell: %v", err)
	}
	deps.SetNamed(env.ShellCapability, sh)
	return sh, nil
}

// agentShells are the local shells of live agent handles: releasing the
// handle (or sw_shutdown) closes the shell, killing its processes.
var agentShells = struct {
	mu sync.Mutex
	m  map[*agent.Agent]*env.LocalShell
}{m: map[*agent.Agent]*env.LocalShell{}}

func keepShell(a *agent.Agent, sh *env.LocalShell) {
	if sh == nil {
		return
	}
	agentShells.mu.Lock()
	defer agentShells.mu.Unlock()
	agentShells.m[a] = sh
}

// releaseShell closes the shell of a released agent handle, if any.
func releaseShell(v any) {
	a, ok := v.(*agent.Agent)
	if !ok {
		return
	}
	agentShells.mu.Lock()
	sh := agentShells.m[a]
	delete(agentShells.m, a)
	agentShells.mu.Unlock()
	if sh != nil {
		sh.Close()
	}
}

// closeShells closes every agent's shell (sw_shutdown).
func closeShells() {
	agentShells.mu.Lock()
	shells := agentShells.m
	agentShells.m = map[*agent.Agent]*env.LocalShell{}
	agentShells.mu.Unlock()
	for _, sh := range shells {
		sh.Close()
	}
}
