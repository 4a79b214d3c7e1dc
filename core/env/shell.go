package env

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Command is what a Shell runs: a shell script (Script, through the
// platform's shell, with its operators and expansion) or a program with
// literal arguments (Program and Args, no shell at all). Exactly one of
// Script and Program is set.
type Command struct {
	Script  string
	Program string
	Args    []string
	// Dir is the working directory, relative to the provider's root.
	Dir string
	// Env adds to the environment (refused under a program allowlist).
	Env     map[string]string
	Timeout time.Duration
}

// ShellCommand is a shell script.
func ShellCommand(script string) Command { return Command{Script: script} }

// ProgramCommand is a program with literal arguments.
func ProgramCommand(program string, args ...string) Command {
	return Command{Program: program, Args: args}
}

// Display is how the command reads in results: the script, or each part
// of a program command quoted.
func (c Command) Display() string {
	if c.Program == "" {
		return c.Script
	}
	parts := make([]string, 0, len(c.Args)+1)
	for _, p := range append([]string{c.Program}, c.Args...) {
		parts = append(parts, strconv.Quote(p))
	}
	return strings.Join(parts, " ")
}

// Output is a finished command's result. Metadata carries the capture
// facts (<stream>_bytes, <stream>_captured_bytes, <stream>_truncated) and
// timed_out.
type Output struct {
	ExitCode int
	Stdout   string
	Stderr   string
	Metadata map[string]any
}

// Shell runs commands to completion under a ShellPolicy.
type Shell interface {
	Run(ctx context.Context, cmd Command) (Output, error)
}

// ProcessStatus is a background process's state.
type ProcessStatus string

// The process states.
const (
	ProcessRunning   ProcessStatus = "running"
	ProcessCompleted ProcessStatus = "completed"
	ProcessFailed    ProcessStatus = "failed"
	ProcessKilled    ProcessStatus = "killed"
)

// Process is a snapshot of a background process.
type Process struct {
	ID       string
	Command  string
	Status   ProcessStatus
	Stdout   string
	Stderr   string
	ExitCode *int
	Metadata map[string]any
}

// Processes keeps background processes.
type Processes interface {
	Start(ctx context.Context, cmd Command) (Process, error)
	// Wait waits up to timeout for the process to end (0: look once) and
	// returns its snapshot; it does not kill it.
	Wait(ctx context.Context, id string, timeout time.Duration) (Process, error)
	List(ctx context.Context) ([]Process, error)
	Input(ctx context.Context, id, text string, closeStdin bool) (Process, error)
	Signal(ctx context.Context, id string, signal int) (Process, error)
	Kill(ctx context.Context, id string) (Process, error)
}

// ShellPolicy decides what a Shell and a Processes provider may run. The
// zero value runs nothing.
type ShellPolicy struct {
	// AllowExecute permits running anything at all.
	AllowExecute bool
	// AllowedPrograms, when not empty, permits only program commands whose
	// program is exactly one of these; shell scripts and environment
	// overrides are then refused (a script's first word proves nothing).
	AllowedPrograms []string
}
