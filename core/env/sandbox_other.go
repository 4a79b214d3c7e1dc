//go:build !linux

package env

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Only Linux has the namespaces the sandbox is made of.

func findSandbox() (string, error) {
	return "", fmt.Errorf("%w: commands are sandboxed on Linux only (this is %s); %s", ErrNoSandbox, runtime.GOOS, noSandboxHelp)
}

func sandboxed(string, string, []string, *exec.Cmd) (*exec.Cmd, *os.File, error) {
	return nil, nil, fmt.Errorf("%w: commands are sandboxed on Linux only", ErrNoSandbox)
}

func programMounts(string, string) []string { return nil }

func readSandboxInit(*os.File) int { return 0 }

func resolveProgram(program, _ string) (string, error) { return program, nil }

func waitSandboxCommand(int, <-chan struct{}) {}
