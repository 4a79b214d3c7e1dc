package shell

import (
	"context"
	"errors"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Names of the bundle.
const (
	// ToolsetName is the name and id of the toolset.
	ToolsetName = "shell"
	// EnvironmentCapability is the named dependency of the environment
	// provider, used as the shell when it implements env.Shell and for
	// scratch files when it implements env.Provider.
	EnvironmentCapability = "starweaver.environment"
	// DefaultOutputLimit is the default Options.OutputLimit.
	DefaultOutputLimit = 20000
	// DefaultTimeoutSeconds is the default timeout of shell_exec and
	// shell_wait.
	DefaultTimeoutSeconds = 180
)

// The tool names.
const (
	ExecTool   = "shell_exec"
	WaitTool   = "shell_wait"
	StatusTool = "shell_status"
	InputTool  = "shell_input"
	SignalTool = "shell_signal"
	KillTool   = "shell_kill"
)

// Instruction is the toolset instruction, in group ToolsetName.
const Instruction = "shell_exec runs a command in the environment's shell and returns its exit code, stdout and stderr. " +
	"Prefer one focused command per call; give cwd (relative to the environment root) instead of cd. " +
	"Start long-running commands (servers, watchers) with background=true, then use shell_wait, shell_status, " +
	"shell_input and shell_kill with the returned process_id; kill background processes you no longer need. " +
	"Long outputs keep their beginning and end; when a *_file_path is given, read the full text from it."

// Options configure the toolset. The zero value is ready to use.
type Options struct {
	// OutputLimit bounds each stream and the whole result, in characters
	// (default DefaultOutputLimit).
	OutputLimit int
	// Policy, when set, narrows what this toolset's shell_exec may run: a
	// command runs only when this policy and the shell's own both permit
	// it, so a toolset can be stricter than the shell it is given, never
	// looser. Nil leaves the decision to the shell.
	Policy *env.ShellPolicy
}

// Tools returns a new "shell" toolset (id "shell") holding the six shell
// tools and their instruction.
func Tools(opts Options) *toolset.Static {
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = DefaultOutputLimit
	}
	b := &bundle{limit: opts.OutputLimit, policy: opts.Policy}
	return toolset.New(ToolsetName,
		b.exec(), b.wait(), b.status(), b.input(), b.signal(), b.kill(),
	).WithID(ToolsetName).WithInstruction(ToolsetName, Instruction)
}

type bundle struct {
	limit  int
	policy *env.ShellPolicy
}

// deps are the dependencies every shell tool declares.
var deps = tool.Dependencies{
	Profile:          tool.ProfileFiltered,
	HostCapabilities: []string{env.ShellCapability, EnvironmentCapability},
	ShellEnvironment: true,
}

func finish(f *tool.Function, sequential bool, class effect.Class) *tool.Function {
	return f.WithSequential(sequential).WithDependencies(deps).WithEffect(class).
		WithMetadata(map[string]any{tool.MetaBundle: ToolsetName})
}

// target is what a call works on.
type target struct {
	shell   env.Shell
	procs   env.Processes // nil when the shell keeps no background processes
	scratch env.Provider  // nil when there is nowhere to spill
}

// resolve finds the shell among the call's named dependencies.
func resolve(tc *tool.Context) (target, error) {
	var t target
	var d *tool.Deps
	if tc != nil {
		d = tc.Deps
	}
	if v, ok := d.Named(EnvironmentCapability); ok {
		if p, ok := v.(env.Provider); ok {
			t.scratch = p
		}
		if s, ok := v.(env.Shell); ok {
			t.shell = s
		}
	}
	if v, ok := d.Named(env.ShellCapability); ok {
		if s, ok := v.(env.Shell); ok {
			t.shell = s
		}
	}
	if t.shell == nil {
		return t, tool.UserError("the shell tools need a shell: provide an env.Shell as the named dependency %q "+
			"(or an environment provider implementing env.Shell as %q)", env.ShellCapability, EnvironmentCapability)
	}
	t.procs, _ = t.shell.(env.Processes)
	return t, nil
}

func (t target) processes() (env.Processes, error) {
	if t.procs == nil {
		return nil, tool.UserError("the shell provided keeps no background processes (it does not implement env.Processes)")
	}
	return t.procs, nil
}

// failure turns a provider error into the tool's error: expected failures
// are feedback, a cancelled context is cancelled, the rest is an
// execution failure.
func failure(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return tool.Cancelled("the command was cancelled and its process group terminated")
	case errors.Is(err, env.ErrAccessDenied):
		return tool.Feedback("refused by the shell policy: %v", err)
	case errors.Is(err, env.ErrNotFound), errors.Is(err, env.ErrInvalidRequest),
		errors.Is(err, env.ErrUnsupported), errors.Is(err, env.ErrLimit):
		return tool.Feedback("%v", err)
	}
	return err
}

func seconds(s float64) time.Duration {
	if s*float64(time.Second) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(s * float64(time.Second))
}

// ExecArgs are the arguments of shell_exec.
type ExecArgs struct {
	Command        string            `json:"command" jsonschema:"description=The shell command to run (a script for /bin/sh with its operators and expansion); with arguments set it is one program name instead."`
	Arguments      []string          `json:"arguments,omitempty" jsonschema:"description=When set: run command as a program with these literal arguments and no shell (the only form a shell restricted to some programs accepts)."`
	TimeoutSeconds float64           `json:"timeout_seconds,omitempty" jsonschema:"default=180,description=Seconds before the command's process group is terminated (foreground and background)."`
	Environment    map[string]string `json:"environment,omitempty" jsonschema:"description=Environment variables to add for this command."`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"description=Working directory relative to the environment root (default: the root)."`
	Background     bool              `json:"background,omitempty" jsonschema:"default=false,description=Start the command in the background and return its process_id at once."`
}

func (b *bundle) exec() *tool.Function {
	f := tool.Typed(ExecTool, "Run a shell command and return its exit code, stdout and stderr; "+
		"with background=true start it and return its process_id.", b.runExec)
	return finish(f, true, effect.ClassUnknown)
}

func (b *bundle) runExec(ctx context.Context, tc *tool.Context, a ExecArgs) (tool.Result, error) {
	if strings.TrimSpace(a.Command) == "" {
		return tool.Result{}, tool.Feedback("command is blank: give the command to run")
	}
	if a.TimeoutSeconds <= 0 {
		return tool.Result{}, tool.Feedback("timeout_seconds must be positive (default %d)", DefaultTimeoutSeconds)
	}
	t, err := resolve(tc)
	if err != nil {
		return tool.Result{}, err
	}
	cmd := env.Command{Dir: a.Cwd, Timeout: seconds(a.TimeoutSeconds)}
	if a.Arguments != nil {
		cmd.Program, cmd.Args = a.Command, a.Arguments
	} else {
		cmd.Script = a.Command
	}
	if len(tc.ShellEnv)+len(a.Environment) > 0 {
		cmd.Env = maps.Clone(tc.ShellEnv)
		if cmd.Env == nil {
			cmd.Env = map[string]string{}
		}
		maps.Copy(cmd.Env, a.Environment)
	}
	if b.policy != nil {
		if err := b.policy.Check(cmd); err != nil {
			return tool.Result{}, failure(ctx, err)
		}
	}
	if a.Background {
		procs, err := t.processes()
		if err != nil {
			return tool.Result{}, err
		}
		p, err := procs.Start(ctx, cmd)
		if err != nil {
			return tool.Result{}, failure(ctx, err)
		}
		return tool.JSON(b.processResult(ctx, t, p)), nil
	}
	out, err := t.shell.Run(ctx, cmd)
	if err != nil {
		return tool.Result{}, failure(ctx, err)
	}
	overrides := a.Environment
	if overrides == nil {
		overrides = map[string]string{}
	}
	res := map[string]any{
		"command": cmd.Display(), "timeout_seconds": a.TimeoutSeconds, "environment": overrides, "cwd": a.Cwd,
		"return_code": out.ExitCode,
	}
	if len(out.Metadata) > 0 {
		res["metadata"] = out.Metadata
	}
	return tool.JSON(b.bound(ctx, t, "shell-exec", res, out.Stdout, out.Stderr)), nil
}

// processResult is the result of a process snapshot.
func (b *bundle) processResult(ctx context.Context, t target, p env.Process) map[string]any {
	res := map[string]any{
		"process_id": p.ID, "command": p.Command, "status": string(p.Status), "return_code": nil,
		"metadata": p.Metadata,
	}
	if p.ExitCode != nil {
		res["return_code"] = *p.ExitCode
	}
	if p.Metadata == nil {
		res["metadata"] = map[string]any{}
	}
	return b.bound(ctx, t, "shell-process", res, p.Stdout, p.Stderr)
}

// WaitArgs are the arguments of shell_wait.
type WaitArgs struct {
	ProcessID      string  `json:"process_id" jsonschema:"description=The process_id shell_exec returned."`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"default=180,description=Seconds to wait for the process to end (0: look once). The process is not killed when they pass."`
}

func (b *bundle) wait() *tool.Function {
	f := tool.Typed(WaitTool, "Wait for a background process to end (at most timeout_seconds) and return its state and output so far.",
		func(ctx context.Context, tc *tool.Context, a WaitArgs) (tool.Result, error) {
			if a.TimeoutSeconds < 0 {
				return tool.Result{}, tool.Feedback("timeout_seconds cannot be negative")
			}
			return b.onProcess(ctx, tc, a.ProcessID, func(p env.Processes) (env.Process, error) {
				return p.Wait(ctx, a.ProcessID, seconds(a.TimeoutSeconds))
			})
		})
	return finish(f, true, effect.ClassReadOnly)
}

// onProcess runs op on the call's process provider and returns the
// snapshot it gives.
func (b *bundle) onProcess(ctx context.Context, tc *tool.Context, id string, op func(env.Processes) (env.Process, error)) (tool.Result, error) {
	if strings.TrimSpace(id) == "" {
		return tool.Result{}, tool.Feedback("process_id is blank: give an id shell_exec or shell_status returned")
	}
	t, err := resolve(tc)
	if err != nil {
		return tool.Result{}, err
	}
	procs, err := t.processes()
	if err != nil {
		return tool.Result{}, err
	}
	p, err := op(procs)
	if err != nil {
		return tool.Result{}, failure(ctx, err)
	}
	return tool.JSON(b.processResult(ctx, t, p)), nil
}

// StatusArgs are the arguments of shell_status (none).
type StatusArgs struct{}

func (b *bundle) status() *tool.Function {
	f := tool.Typed(StatusTool, "List the background processes with their state and output so far.",
		func(ctx context.Context, tc *tool.Context, _ StatusArgs) (tool.Result, error) {
			t, err := resolve(tc)
			if err != nil {
				return tool.Result{}, err
			}
			procs, err := t.processes()
			if err != nil {
				return tool.Result{}, err
			}
			list, err := procs.List(ctx)
			if err != nil {
				return tool.Result{}, failure(ctx, err)
			}
			out := make([]any, 0, len(list))
			for _, p := range list {
				out = append(out, b.processResult(ctx, t, p))
			}
			return tool.JSON(map[string]any{"processes": out}), nil
		})
	return finish(f, false, effect.ClassReadOnly)
}

// InputArgs are the arguments of shell_input.
type InputArgs struct {
	ProcessID  string `json:"process_id" jsonschema:"description=The process_id shell_exec returned."`
	Text       string `json:"text,omitempty" jsonschema:"description=A line to write to the process's stdin (a newline is added)."`
	CloseStdin bool   `json:"close_stdin,omitempty" jsonschema:"default=false,description=Close stdin afterwards (end of input)."`
}

func (b *bundle) input() *tool.Function {
	f := tool.Typed(InputTool, "Write a line to a background process's stdin, and optionally close it.",
		func(ctx context.Context, tc *tool.Context, a InputArgs) (tool.Result, error) {
			return b.onProcess(ctx, tc, a.ProcessID, func(p env.Processes) (env.Process, error) {
				return p.Input(ctx, a.ProcessID, a.Text, a.CloseStdin)
			})
		})
	return finish(f, true, effect.ClassNonIdempotentWrite)
}

// SignalArgs are the arguments of shell_signal.
type SignalArgs struct {
	ProcessID string `json:"process_id" jsonschema:"description=The process_id shell_exec returned."`
	Signal    int    `json:"signal" jsonschema:"description=A Unix signal number (2 INT, 15 TERM, 9 KILL, 10 USR1, ...), sent to the process's group."`
}

func (b *bundle) signal() *tool.Function {
	f := tool.Typed(SignalTool, "Send a Unix signal to a background process (and its process group).",
		func(ctx context.Context, tc *tool.Context, a SignalArgs) (tool.Result, error) {
			return b.onProcess(ctx, tc, a.ProcessID, func(p env.Processes) (env.Process, error) {
				return p.Signal(ctx, a.ProcessID, a.Signal)
			})
		})
	return finish(f, true, effect.ClassNonIdempotentWrite)
}

// KillArgs are the arguments of shell_kill.
type KillArgs struct {
	ProcessID string `json:"process_id" jsonschema:"description=The process_id shell_exec returned."`
}

func (b *bundle) kill() *tool.Function {
	f := tool.Typed(KillTool, "Terminate a background process and its children, and return its final state and output.",
		func(ctx context.Context, tc *tool.Context, a KillArgs) (tool.Result, error) {
			return b.onProcess(ctx, tc, a.ProcessID, func(p env.Processes) (env.Process, error) {
				return p.Kill(ctx, a.ProcessID)
			})
		})
	return finish(f, true, effect.ClassIdempotentWrite)
}
