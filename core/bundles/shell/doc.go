// Package shell provides the first-party "shell" toolset: shell_exec runs
// a command (a shell script, or a program with literal arguments) in the
// foreground or the background, and shell_wait, shell_status,
// shell_input, shell_signal and shell_kill manage background processes.
//
// The tools reach the operating system only through a
// [github.com/starweaver-go/starweaver/core/env] provider given as a
// named dependency: an [env.Shell] (and, for background processes, an
// [env.Processes]) under [env.ShellCapability] ("starweaver.shell"), such
// as [env.LocalShell]; or else the environment provider under
// "starweaver.environment" when it implements [env.Shell] (the virtual
// provider does, with canned outputs). The provider's [env.ShellPolicy]
// decides what may run; its refusals, unknown processes, a blank command
// and other expected failures come back to the model as tool.Feedback,
// and a missing shell dependency is a tool.UserError.
//
// Each tool declares a Filtered dependency profile with those two host
// capabilities and the shell environment: the session's shell environment
// values (tool.Context.ShellEnv) are the base environment of every
// command, and a call's own "environment" adds to them.
//
// Outputs are bounded as in the Starweaver reference: a stream longer than
// the output limit (20,000 characters by default) keeps its head and tail
// around a "middle truncated" marker, and its whole text is written to the
// environment provider's scratch directory when there is one
// (stdout_file_path, stderr_file_path); a result still too large is
// spilled whole (output_file_path) and fitted, or reduced to its essentials.
//
// The tools are sequential except shell_status. shell_exec does not ask
// for approval by itself; gate it with the agent's approval policy
// (agent.Builder.ApprovalRequiredTools) where a person should confirm
// each command.
//
// IntentProcesses runs the processes that tools' intents start
// (core/intent's StartProcess and the commands on it) as processes of
// such a shell, their history kept in the intent journal.
package shell
