//go:build linux

package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/env"
)

var allowAll = env.ShellPolicy{AllowExecute: true}

// fastOpts keeps the security tests quick: a short grace and drain.
var fastOpts = env.LocalShellOptions{TermGrace: 300 * time.Millisecond, DrainTimeout: 500 * time.Millisecond}

func newShell(t *testing.T, policy env.ShellPolicy, opts env.LocalShellOptions) *env.LocalShell {
	t.Helper()
	s, err := env.NewLocalShell(t.TempDir(), policy, opts)
	if errors.Is(err, env.ErrNoSandbox) && os.Getenv("STARWEAVER_REQUIRE_SANDBOX") == "" {
		t.Skipf("no sandbox here (set STARWEAVER_REQUIRE_SANDBOX=1 to fail instead): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// groupMembers returns the live (not zombie) processes of group pgid,
// read from /proc.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// rest[0] is the state, rest[2] the process group.
		if len(rest) > 2 && rest[0] != "Z" && rest[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func requireGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no process group id (%d)", pgid)
	}
	if left := groupMembers(t, pgid); len(left) > 0 {
		t.Fatalf("process group %d still has processes %v", pgid, left)
	}
}

func pidOf(t *testing.T, md map[string]any) int {
	t.Helper()
	pid, ok := md["pid"].(int)
	if !ok {
		t.Fatalf("no pid in %v", md)
	}
	return pid
}

func TestLocalShellRun(t *testing.T) {
	s := newShell(t, allowAll, env.LocalShellOptions{})
	if err := os.Mkdir(filepath.Join(s.Root(), "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := s.Run(ctx, env.Command{Script: `echo "$GREETING"; pwd; echo oops >&2; exit 3`, Dir: "sub", Env: map[string]string{"GREETING": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 3 || out.Stdout != "hi\n"+filepath.Join(s.Root(), "sub")+"\n" || out.Stderr != "oops\n" {
		t.Fatalf("output %+v", out)
	}
	if out.Metadata["stdout_truncated"] != false || out.Metadata["stderr_bytes"] != int64(5) || out.Metadata["stderr_captured_bytes"] != 5 {
		t.Fatalf("metadata %v", out.Metadata)
	}
	out, err = s.Run(ctx, env.ProgramCommand("printf", "%s|", "a b", "$HOME"))
	if err != nil || out.Stdout != "a b|$HOME|" {
		t.Fatalf("program: %+v %v", out, err)
	}
	if _, err := s.Run(ctx, env.ProgramCommand("no-such-program-xyz")); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("a missing program: %v", err)
	}
	// The host's secrets stay in the host.
	t.Setenv("STARWEAVER_TEST_SECRET", "s3cret")
	out, _ = s.Run(ctx, env.ShellCommand(`echo "[$STARWEAVER_TEST_SECRET]"`))
	if out.Stdout != "[]\n" {
		t.Fatalf("the host environment leaked: %q", out.Stdout)
	}
}

func TestLocalShellWorkingDirectoryConfined(t *testing.T) {
	s := newShell(t, allowAll, env.LocalShellOptions{})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(s.Root(), "escape")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for dir, want := range map[string]error{
		"..": env.ErrInvalidRequest, "/tmp": env.ErrInvalidRequest, "a/../../x": env.ErrInvalidRequest,
		"escape": env.ErrAccessDenied, "missing": env.ErrNotFound,
	} {
		if _, err := s.Run(ctx, env.Command{Script: "pwd", Dir: dir}); !errors.Is(err, want) {
			t.Errorf("dir %q: %v, want %v", dir, err, want)
		}
	}
}

func TestLocalShellPolicy(t *testing.T) {
	ctx := context.Background()
	denied := newShell(t, env.ShellPolicy{}, env.LocalShellOptions{})
	if _, err := denied.Run(ctx, env.ProgramCommand("true")); !errors.Is(err, env.ErrAccessDenied) {
		t.Fatalf("execution not allowed: %v", err)
	}
	if _, err := denied.Start(ctx, env.ShellCommand("true")); !errors.Is(err, env.ErrAccessDenied) {
		t.Fatalf("execution not allowed (background): %v", err)
	}

	s := newShell(t, env.ShellPolicy{AllowExecute: true, AllowedPrograms: []string{"echo"}}, env.LocalShellOptions{})
	if out, err := s.Run(ctx, env.ProgramCommand("echo", "ok; rm -rf /")); err != nil || out.Stdout != "ok; rm -rf /\n" {
		t.Fatalf("an allowed program: %+v %v", out, err)
	}
	refused := map[string]env.Command{
		"the allowed program through a shell string": env.ShellCommand("echo hi"),
		"a shell string starting with it":            env.ShellCommand("echo hi; id"),
		"another program":                            env.ProgramCommand("sh", "-c", "echo hi"),
		"a path to the allowed name":                 env.ProgramCommand("/bin/echo", "hi"),
		"an environment override":                    {Program: "echo", Args: []string{"hi"}, Env: map[string]string{"PATH": "/tmp"}},
		"a loader override":                          {Program: "echo", Env: map[string]string{"LD_PRELOAD": "/tmp/x.so"}},
	}
	for name, cmd := range refused {
		_, err := s.Run(ctx, cmd)
		if !errors.Is(err, env.ErrAccessDenied) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := s.Start(ctx, cmd); !errors.Is(err, env.ErrAccessDenied) {
			t.Errorf("%s (background): %v", name, err)
		}
	}
	_, err := s.Run(ctx, env.ShellCommand("echo hi"))
	if !strings.Contains(err.Error(), "shell scripts are refused") {
		t.Fatalf("the refusal does not say why: %v", err)
	}
}

// A process that ignores TERM is killed with its group after the grace.
func TestLocalShellTimeoutKillsGroupIgnoringTerm(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	start := time.Now()
	out, err := s.Run(context.Background(), env.Command{Script: "trap '' TERM; sleep 100 & sleep 100", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	if out.Metadata["timed_out"] != true || out.Metadata["signal"] != 9 || out.ExitCode != 137 || !strings.Contains(out.Stderr, "timed out") {
		t.Fatalf("output %+v", out)
	}
	requireGone(t, pidOf(t, out.Metadata))
}

// A fork bomb is bounded by its own guard (ulimit -u, which binds only a
// non-root user, and a depth: this test must stay safe on a shared
// machine even as root) and by the group kill at the timeout: nothing of
// it is left.
func TestLocalShellForkBombContained(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	script := `ulimit -u 512 2>/dev/null
bomb() { trap '' TERM; if [ "$1" -gt 0 ]; then bomb $(($1-1)) & bomb $(($1-1)) & fi; while :; do sleep 1; done; }
bomb 5`
	start := time.Now()
	out, err := s.Run(context.Background(), env.Command{Script: script, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	if out.Metadata["timed_out"] != true {
		t.Fatalf("output %+v", out)
	}
	requireGone(t, pidOf(t, out.Metadata))
}

// A flood of output is read to its end but kept only up to the bound.
func TestLocalShellOutputFloodBounded(t *testing.T) {
	const limit = 64 << 10
	s := newShell(t, allowAll, env.LocalShellOptions{MaxCaptureBytes: limit, TermGrace: 300 * time.Millisecond})
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := s.Run(context.Background(), env.Command{Script: "yes", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	md := out.Metadata
	if len(out.Stdout) != limit || md["stdout_truncated"] != true || md["stdout_captured_bytes"] != limit ||
		md["stdout_bytes"].(int64) <= 4*limit {
		t.Fatalf("metadata %v, %d bytes kept", md, len(out.Stdout))
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 32<<20 {
		t.Fatalf("the heap grew by %d bytes", grew)
	}
	requireGone(t, pidOf(t, md))
}

// Cancelling a run terminates its group, children included.
func TestLocalShellCancelKillsForeground(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	out, err := s.Run(ctx, env.ShellCommand("sleep 100 & sleep 100 & wait"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	requireGone(t, pidOf(t, out.Metadata))
}

// Close terminates background processes and their children; the shell
// refuses commands afterwards.
func TestLocalShellCloseKillsBackground(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	ctx := context.Background()
	marker := "5" + strconv.Itoa(os.Getpid()) + "3"
	var pids []int
	for _, script := range []string{"sleep " + marker, "trap '' TERM; sleep " + marker + " & sleep " + marker + " & wait", "sh -c 'sleep " + marker + "' & wait"} {
		p, err := s.Start(ctx, env.ShellCommand(script))
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pidOf(t, p.Metadata))
	}
	waitMarker(t, marker, 4) // the children started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		requireGone(t, pid)
	}
	if left := withMarker(t, marker); len(left) > 0 {
		t.Fatalf("after Close %v are left", left)
	}
	if _, err := s.Run(ctx, env.ShellCommand("true")); err == nil {
		t.Fatal("a closed shell ran a command")
	}
	list, _ := s.List(ctx)
	for _, p := range list {
		if p.Status != env.ProcessKilled {
			t.Fatalf("after Close: %+v", p)
		}
	}
}

func TestLocalShellBackgroundProcesses(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	ctx := context.Background()
	p, err := s.Start(ctx, env.ShellCommand(`read line; echo "got $line"; exit 2`))
	if err != nil || p.Status != env.ProcessRunning || !strings.HasPrefix(p.ID, "process_") || p.ExitCode != nil {
		t.Fatalf("start %+v %v", p, err)
	}
	if p, err = s.Input(ctx, p.ID, "x", true); err != nil {
		t.Fatal(err)
	}
	p, err = s.Wait(ctx, p.ID, 5*time.Second)
	if err != nil || p.Status != env.ProcessFailed || *p.ExitCode != 2 || p.Stdout != "got x\n" {
		t.Fatalf("wait %+v %v", p, err)
	}
	if _, err := s.Input(ctx, p.ID, "y", false); !errors.Is(err, env.ErrInvalidRequest) {
		t.Fatalf("input to an ended process: %v", err)
	}

	sleeper, _ := s.Start(ctx, env.ShellCommand("trap 'echo usr1' USR1; echo ready; while :; do sleep 0.05; done"))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got, _ := s.Wait(ctx, sleeper.ID, 0)
		if got.Status != env.ProcessRunning {
			t.Fatalf("a look without waiting %+v", got)
		}
		if got.Stdout == "ready\n" || time.Now().After(deadline) {
			break
		}
	}
	if _, err := s.Signal(ctx, sleeper.ID, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Signal(ctx, sleeper.ID, 99); !errors.Is(err, env.ErrInvalidRequest) {
		t.Fatalf("a bad signal: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	killed, err := s.Kill(ctx, sleeper.ID)
	if err != nil || killed.Status != env.ProcessKilled || !strings.Contains(killed.Stdout, "usr1") {
		t.Fatalf("kill %+v %v", killed, err)
	}
	requireGone(t, pidOf(t, killed.Metadata))

	list, _ := s.List(ctx)
	if len(list) != 2 || list[0].ID != p.ID || list[1].ID != sleeper.ID {
		t.Fatalf("list %+v", list)
	}
	for _, op := range []func() error{
		func() error { _, err := s.Wait(ctx, "process_1", 0); return err },
		func() error { _, err := s.Kill(ctx, "nope"); return err },
		func() error { _, err := s.Input(ctx, "nope", "", true); return err },
	} {
		if err := op(); !errors.Is(err, env.ErrNotFound) {
			t.Fatalf("an unknown process: %v", err)
		}
	}

	timed, _ := s.Start(ctx, env.Command{Script: "sleep 100", Timeout: 200 * time.Millisecond})
	if got, _ := s.Wait(ctx, timed.ID, 5*time.Second); got.Status != env.ProcessKilled || got.Metadata["timed_out"] != true {
		t.Fatalf("a background timeout %+v", got)
	}
}

// One allowance covers foreground and background processes; over it a
// command is refused, not queued.
func TestLocalShellProcessLimitAndRetention(t *testing.T) {
	s := newShell(t, allowAll, env.LocalShellOptions{MaxProcesses: 2, Retention: 2, TermGrace: 300 * time.Millisecond})
	ctx := context.Background()
	a, _ := s.Start(ctx, env.ShellCommand("sleep 100"))
	if _, err := s.Start(ctx, env.ShellCommand("sleep 100")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, env.ShellCommand("true")); !errors.Is(err, env.ErrLimit) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := s.Kill(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, env.ShellCommand("true")); err != nil {
		t.Fatalf("after a kill: %v", err)
	}
	for range 2 {
		p, err := s.Start(ctx, env.ShellCommand("true"))
		if err != nil {
			t.Fatal(err)
		}
		s.Wait(ctx, p.ID, 5*time.Second)
	}
	list, _ := s.List(ctx)
	// The running sleeper and the two newest finished processes.
	if len(list) != 3 {
		t.Fatalf("retained %+v", list)
	}
	if _, err := s.Wait(ctx, a.ID, 0); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("the oldest finished process was kept: %v", err)
	}
}

// withMarker returns the live processes with marker as one of their
// arguments, read from /proc: what a test started is found wherever it
// went (its own group, a child, a grandchild).
func withMarker(t *testing.T, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !slices.Contains(strings.Split(string(cmdline), "\x00"), marker) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			s := string(stat)
			if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitMarker polls (bounded) until exactly want processes carry marker.
func waitMarker(t *testing.T, marker string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := withMarker(t, marker)
		if len(got) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes carry %q (%v), want %d", len(got), marker, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A scope's Kill ends the background processes started under it, their
// children and a TERM-ignoring one included, and nothing else; a start
// under a killed scope does not survive.
func TestProcessScopeKill(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	// The marker is sleep's own argument: a number of seconds no other
	// process uses.
	marker := "7" + strconv.Itoa(os.Getpid()) + "1"
	var scope env.ProcessScope
	ctx := env.WithProcessScope(context.Background(), &scope)
	// A cancellation added under the scope does not hide it.
	inner, cancel := context.WithCancel(ctx)
	for _, script := range []string{
		"exec sleep " + marker,
		"trap '' TERM; sleep " + marker + " & sleep " + marker + " & wait",
	} {
		if _, err := s.Start(inner, env.ShellCommand(script)); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	kept, err := s.Start(context.Background(), env.ShellCommand("exec sleep "+marker))
	if err != nil {
		t.Fatal(err)
	}
	waitMarker(t, marker, 4)
	scope.Kill()
	if left := withMarker(t, marker); len(left) != 1 {
		t.Fatalf("after Kill %v are left, want only the process started outside the scope", left)
	}
	if p, err := s.Wait(context.Background(), kept.ID, 0); err != nil || p.Status != env.ProcessRunning {
		t.Fatalf("the process started outside the scope: %+v %v", p, err)
	}
	late, err := s.Start(ctx, env.ShellCommand("exec sleep "+marker))
	if err != nil {
		t.Fatal(err)
	}
	if late.Status != env.ProcessKilled {
		t.Fatalf("a start under a killed scope: %+v", late)
	}
	requireGone(t, pidOf(t, late.Metadata))
	scope.Kill()
	if _, err := s.Kill(context.Background(), kept.ID); err != nil {
		t.Fatal(err)
	}
	waitMarker(t, marker, 0)
}

// Run returns only once the command's process group is gone: /bin/sh does
// not always exec its last command, so a timed-out "yes" leaves a child
// that was killed but may still be exiting when sh has been reaped.
func TestRunReturnsOnceTheGroupIsGone(t *testing.T) {
	opts := fastOpts
	opts.Unsandboxed = true
	s := newShell(t, allowAll, opts)
	for range 10 {
		out, err := s.Run(context.Background(), env.Command{Script: "yes", Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if left := groupMembers(t, pidOf(t, out.Metadata)); len(left) > 0 {
			t.Fatalf("processes %v of the group are left after Run returned", left)
		}
	}
}
