package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/env"
)

// A sandboxed command cannot read the host process: not its environment,
// not its command line, not its memory; the sandbox's own init holds no
// environment either.
func TestSandboxHidesTheHostProcess(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	host := strconv.Itoa(os.Getpid())
	ctx := context.Background()
	for _, file := range []string{"environ", "cmdline", "mem"} {
		out, err := s.Run(ctx, env.ProgramCommand("cat", "/proc/"+host+"/"+file))
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode == 0 || out.Stdout != "" {
			t.Fatalf("cat /proc/%s/%s: %+v", host, file, out)
		}
	}
	out, err := s.Run(ctx, env.ShellCommand(`tr '\0' '\n' < /proc/1/environ; echo "pids: $(ls /proc | grep -c '^[0-9]')"`))
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 0 || strings.Contains(out.Stdout, "=") {
		t.Fatalf("the sandbox's init: %+v", out)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.Stdout), "pids:"))); n == 0 || n > 5 {
		t.Fatalf("the sandbox sees %q processes", out.Stdout)
	}
}

// Only the root is writable; /tmp is the sandbox's own.
func TestSandboxWritesOnlyTheRoot(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	outside := t.TempDir()
	ctx := context.Background()
	out, err := s.Run(ctx, env.ProgramCommand("sh", "-c", `echo in > inside.txt; echo out > "$0/outside.txt"; echo tmp > /tmp/x.txt && cat /tmp/x.txt`, outside))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Root(), "inside.txt")); err != nil || string(b) != "in\n" {
		t.Fatalf("the root is not writable: %q %v (%+v)", b, err, out)
	}
	if _, err := os.Stat(filepath.Join(outside, "outside.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file outside the root was written: %v (%+v)", err, out)
	}
	if out.Stdout != "tmp\n" {
		t.Fatalf("the sandbox's /tmp: %+v", out)
	}
}

// Opting out runs commands on the host: they see the host process.
func TestUnsandboxedSeesTheHost(t *testing.T) {
	opts := fastOpts
	opts.Unsandboxed = true
	s := newShell(t, allowAll, opts)
	out, err := s.Run(context.Background(), env.ProgramCommand("/bin/cat", "/proc/"+strconv.Itoa(os.Getpid())+"/cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 0 || !strings.Contains(out.Stdout, filepath.Base(os.Args[0])) {
		t.Fatalf("unsandboxed: %+v", out)
	}
}

// Without bubblewrap, a shell that may run commands is refused with a
// clear error, unless it opts out; one that runs nothing needs no sandbox.
func TestNoSandboxFailsClosed(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := env.NewLocalShell(t.TempDir(), allowAll, env.LocalShellOptions{})
	if !errors.Is(err, env.ErrNoSandbox) || !strings.Contains(err.Error(), "bubblewrap") || !strings.Contains(err.Error(), "Unsandboxed") {
		t.Fatalf("err %v", err)
	}
	if _, err := env.NewLocalShell(t.TempDir(), env.ShellPolicy{}, env.LocalShellOptions{}); err != nil {
		t.Fatalf("a shell that runs nothing: %v", err)
	}
	if _, err := env.NewLocalShell(t.TempDir(), allowAll, env.LocalShellOptions{Unsandboxed: true}); err != nil {
		t.Fatalf("opted out: %v", err)
	}
}

// A signal reaches the sandboxed command, which may trap it; the exit code
// and the signal are reported as without the sandbox.
func TestSandboxSignals(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	ctx := context.Background()
	p, err := s.Start(ctx, env.ShellCommand(`trap 'echo got USR1; exit 7' USR1; echo ready; while :; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	// The trap is set once "ready" is out; polled with a bound (no event
	// says that output arrived).
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.Stdout, "ready"); p, _ = s.Wait(ctx, p.ID, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start: %+v", p)
		}
	}
	if _, err := s.Signal(ctx, p.ID, 10); err != nil {
		t.Fatal(err)
	}
	p, _ = s.Wait(ctx, p.ID, 10*time.Second)
	if p.ExitCode == nil || *p.ExitCode != 7 || !strings.Contains(p.Stdout, "got USR1") {
		t.Fatalf("after USR1: %+v", p)
	}
	p, err = s.Start(ctx, env.ProgramCommand("sleep", "100"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ = s.Kill(ctx, p.ID)
	if p.Status != env.ProcessKilled || p.ExitCode == nil || *p.ExitCode != 143 || p.Metadata["signal"] != 15 {
		t.Fatalf("killed: %+v", p)
	}
}

// A command's environment reaches it, but not the launcher's command line,
// which every user of the host can read.
func TestSandboxKeepsTheEnvironmentOffTheCommandLine(t *testing.T) {
	s := newShell(t, allowAll, fastOpts)
	ctx := context.Background()
	p, err := s.Start(ctx, env.Command{Script: `echo "[$TOKEN]"; read _`, Env: map[string]string{"TOKEN": "tok-3141"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill(ctx, p.ID)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.Stdout, "]"); p, _ = s.Wait(ctx, p.ID, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no output: %+v", p)
		}
	}
	if p.Stdout != "[tok-3141]\n" {
		t.Fatalf("the command's environment: %q", p.Stdout)
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pidOf(t, p.Metadata)) + "/cmdline")
	if err != nil || strings.Contains(string(cmdline), "tok-3141") || !strings.Contains(string(cmdline), "bwrap") {
		t.Fatalf("the launcher's command line: %q %v", cmdline, err)
	}
}

// Of the host's files a command sees the system's and the root: a file
// elsewhere (the user's home, another project) is not there to read,
// unless the options show its directory read-only.
func TestSandboxShowsOnlyTheSystemAndTheRoot(t *testing.T) {
	// Not under /tmp, which the sandbox replaces anyway.
	outside, err := os.MkdirTemp(".", "outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if outside, err = filepath.Abs(outside); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "credentials")
	if err := os.WriteFile(secret, []byte("sk-host-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := newShell(t, allowAll, fastOpts)
	out, err := s.Run(ctx, env.ProgramCommand("cat", secret))
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode == 0 || strings.Contains(out.Stdout, "sk-host-secret") {
		t.Fatalf("a file outside the root was read: %+v", out)
	}
	home, _ := os.UserHomeDir()
	if home != "" && home != "/" {
		out, err := s.Run(ctx, env.ProgramCommand("ls", "-A", home))
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode == 0 && strings.TrimSpace(out.Stdout) != "" {
			t.Fatalf("the host user's home %s is visible: %+v", home, out)
		}
	}
	opts := fastOpts
	opts.SandboxReadOnly = []string{outside}
	shown := newShell(t, allowAll, opts)
	out, err = shown.Run(ctx, env.ShellCommand(`cat "`+secret+`"; echo x > "`+outside+`/new" || echo refused`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Stdout, "sk-host-secret") || !strings.Contains(out.Stdout, "refused") {
		t.Fatalf("a read-only path: %+v", out)
	}
	if _, err := env.NewLocalShell(t.TempDir(), allowAll, env.LocalShellOptions{SandboxReadOnly: []string{"relative"}}); err == nil {
		t.Fatal("a relative read-only path was accepted")
	}
}

// A program the host finds outside the system's directories runs in the
// sandbox with its installation (the directory above its bin/), also
// through a link, as a virtualenv's python links to its interpreter.
func TestSandboxShowsAProgramsInstallation(t *testing.T) {
	inst := filepath.Join(t.TempDir(), "inst")
	for _, d := range []string{"bin", "share"} {
		if err := os.MkdirAll(filepath.Join(inst, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool := filepath.Join(inst, "bin", "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\ncat \"$(dirname \"$(readlink -f \"$0\")\")/../share/msg\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inst, "share", "msg"), []byte("installed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(t.TempDir(), "venv", "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tool, filepath.Join(venv, "tool")); err != nil {
		t.Fatal(err)
	}
	s := newShell(t, allowAll, fastOpts)
	for _, program := range []string{tool, filepath.Join(venv, "tool")} {
		out, err := s.Run(context.Background(), env.ProgramCommand(program))
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode != 0 || out.Stdout != "installed\n" {
			t.Fatalf("%s: %+v", program, out)
		}
	}
}
