package env

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The sandbox is bubblewrap (bwrap), run as
//
//	bwrap --die-with-parent --new-session --unshare-pid --unshare-ipc
//	      --ro-bind-try /usr /usr (and /bin /sbin /lib* /etc)
//	      --dev /dev --proc /proc --tmpfs /tmp
//	      [--ro-bind PATH PATH for each of LocalShellOptions.SandboxReadOnly]
//	      --bind ROOT ROOT --chdir DIR --clearenv --setenv K V ... -- COMMAND
//
// so that a command:
//   - runs in a PID namespace with its own /proc: the host process (its
//     environ, cmdline, mem) is not there to read; the namespace's PID 1 is
//     bwrap's init, started with an empty environment, so its
//     /proc/1/environ holds nothing either;
//   - sees of the host's files only the system's (programs, libraries,
//     /etc) read-only, ROOT read-write, the paths the options add
//     read-only, a fresh, empty /tmp and a minimal /dev: the host user's
//     home (its keys and dotfiles), other projects, /var and /opt are not
//     there, so a hard link or a path out of ROOT reaches nothing;
//   - dies with the host (--die-with-parent, plus our own Pdeathsig on the
//     bwrap process): when bwrap goes, the namespace's init goes, and the
//     kernel kills everything left in the namespace, grandchildren too;
//   - shares the host's network and user (no user namespace is made when
//     running as root; bwrap makes one otherwise).
//
// The bwrap process itself starts with an empty environment: the command's
// environment reaches the command through --setenv, never bwrap's own
// loader (LD_PRELOAD in a command's environment must not run outside the
// sandbox).
//
// Signals: --new-session makes the namespace's init a session and group
// leader whose group holds the command's processes. A namespace init
// ignores the signals it has no handler for, so TERM sent to that group
// reaches the command (which may trap it) and KILL ends the whole
// namespace. The launcher reports that group through --info-fd.

// sandboxArgs are the bwrap options before the per-command ones: the
// system directories a shell and its programs need, read-only (-try: a
// system may lack /lib32; on merged-/usr systems /bin is a link into /usr).
var sandboxArgs = []string{
	"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
	"--ro-bind-try", "/usr", "/usr", "--ro-bind-try", "/bin", "/bin", "--ro-bind-try", "/sbin", "/sbin",
	"--ro-bind-try", "/lib", "/lib", "--ro-bind-try", "/lib32", "/lib32", "--ro-bind-try", "/lib64", "/lib64",
	"--ro-bind-try", "/libx32", "/libx32", "--ro-bind-try", "/etc", "/etc",
	"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
}

// systemDirs are the host directories every sandbox shows (sandboxArgs).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// programMounts returns what a sandbox must show, read-only, for the
// program at path (resolved on the host) to run: nothing for a program of
// the system's directories or of root; else its installation, the
// directory above its bin/ (a pyenv's shims/ counts as bin/), for the path
// and for the file it links to (a virtualenv's python links to its base
// interpreter). Never "/" or the home directory as a whole: then only the
// program's own directory.
func programMounts(path, root string) []string {
	var out []string
	home, _ := os.UserHomeDir()
	candidates := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		candidates = append(candidates, real)
	}
	for _, p := range candidates {
		if !filepath.IsAbs(p) || within(p, root) || slices.ContainsFunc(systemDirs, func(d string) bool { return within(p, d) }) {
			continue
		}
		dir := filepath.Dir(p)
		prefix := dir
		switch filepath.Base(dir) {
		case "bin", "sbin", "shims":
			prefix = filepath.Dir(dir)
		}
		if prefix == "/" || prefix == home {
			prefix = dir
		}
		if !slices.Contains(out, prefix) {
			out = append(out, prefix)
		}
	}
	return out
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// probes caches, per bwrap path, whether a sandbox could be made.
var probes sync.Map // string → *probe

type probe struct {
	once sync.Once
	err  error
}

// findSandbox returns the path of a bwrap that can make the sandbox here,
// or an error wrapping ErrNoSandbox. The check (one sandboxed "true") runs
// once per bwrap path per process.
func findSandbox() (string, error) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("%w: bubblewrap (bwrap) is not on PATH; %s", ErrNoSandbox, noSandboxHelp)
	}
	v, _ := probes.LoadOrStore(path, &probe{})
	p := v.(*probe)
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		args := append(slices.Clone(sandboxArgs), "--", "/bin/sh", "-c", ":")
		c := exec.CommandContext(ctx, path, args...)
		c.Env = []string{}
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			p.err = fmt.Errorf("%w: %s cannot make a sandbox here (%v: %s); %s",
				ErrNoSandbox, path, err, strings.TrimSpace(stderr.String()), noSandboxHelp)
		}
	})
	return path, p.err
}

// sandboxed returns the bwrap command that runs c (its Path, Args, Dir and
// Env) in the sandbox around root, and the read end of the pipe on which
// bwrap reports its init's pid (see readSandboxInit). c's other fields are
// kept. bwrap's options, the command's environment among them, reach it
// through a pipe (--args), not its command line, which other users of the
// host can read; only the command itself is on it, as it would be
// unsandboxed. The caller closes the cmd's ExtraFiles once it started (or
// failed to start) it.
func sandboxed(bwrap, root string, readOnly []string, c *exec.Cmd) (*exec.Cmd, *os.File, error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	argsR, argsW, err := os.Pipe()
	if err != nil {
		infoR.Close()
		infoW.Close()
		return nil, nil, err
	}
	opts := slices.Clone(sandboxArgs)
	for _, p := range readOnly {
		opts = append(opts, "--ro-bind", p, p)
	}
	opts = append(opts, "--bind", root, root, "--chdir", c.Dir, "--info-fd", "3", "--clearenv")
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		opts = append(opts, "--setenv", k, v)
	}
	var buf bytes.Buffer
	for _, o := range opts {
		buf.WriteString(o)
		buf.WriteByte(0)
	}
	// A pipe holds 64 KiB; the writer finishes as bwrap reads, or fails
	// once the read ends are closed when bwrap did not start.
	go func() {
		_, _ = argsW.Write(buf.Bytes())
		argsW.Close()
	}()
	args := append([]string{"--args", "4", "--", c.Path}, c.Args[1:]...)
	w := exec.Command(bwrap, args...)
	w.Dir, w.Env, w.SysProcAttr = c.Dir, []string{}, c.SysProcAttr
	w.ExtraFiles = []*os.File{infoW, argsR}
	return w, infoR, nil
}

// readSandboxInit reads bwrap's --info-fd report and returns the host pid
// of the sandbox's init (0 when bwrap ended without one), closing r.
func readSandboxInit(r *os.File) int {
	defer r.Close()
	var info struct {
		ChildPID int `json:"child-pid"`
	}
	if json.NewDecoder(io.LimitReader(r, 4096)).Decode(&info) != nil {
		return 0
	}
	return info.ChildPID
}

// resolveProgram returns the path a program command runs, found as exec
// would (the host's PATH for a bare name, dir for a relative path), so
// that a missing program is ErrNotFound before any sandbox starts.
func resolveProgram(program, dir string) (string, error) {
	if !strings.Contains(program, "/") {
		return exec.LookPath(program)
	}
	p := program
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return program, nil
}

// waitSandboxCommand returns once the sandbox init (host pid init) has
// forked the command, or exited is closed, or 10 s passed: a signal sent
// to the init's group before then would reach only the init, which
// ignores it. bwrap gives no event for that moment, so this polls the
// init's children (a few milliseconds after bwrap's report at most).
func waitSandboxCommand(init int, exited <-chan struct{}) {
	children := "/proc/" + strconv.Itoa(init) + "/task/" + strconv.Itoa(init) + "/children"
	deadline := time.Now().Add(10 * time.Second)
	for delay := 100 * time.Microsecond; time.Now().Before(deadline); delay = min(2*delay, 20*time.Millisecond) {
		if b, err := os.ReadFile(children); err != nil || len(bytes.TrimSpace(b)) > 0 {
			return // the command runs, or the init is gone
		}
		select {
		case <-exited:
			return
		case <-time.After(delay):
		}
	}
}
