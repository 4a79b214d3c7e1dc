package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/spawn"
)

// ErrLimit is wrapped by the error of a command refused because a limit of
// the provider is reached (its concurrent processes): wait for or kill a
// running process and try again.
var ErrLimit = errors.New("env: limit reached")

// The defaults of LocalShellOptions.
const (
	DefaultMaxProcesses    = 8
	DefaultMaxCaptureBytes = 1 << 20
	DefaultRetention       = 64
	DefaultTermGrace       = 2 * time.Second
	DefaultDrainTimeout    = 2 * time.Second
)

// LocalShellOptions bound a LocalShell. A zero field takes its default
// (a host that must refuse an explicit 0 states its limits as
// [ShellLimits]).
type LocalShellOptions struct {
	// MaxProcesses is the number of processes (foreground runs and
	// background processes together) that may run at once; a command over
	// it is refused with ErrLimit, never queued. Default 8.
	MaxProcesses int
	// MaxCaptureBytes bounds what is kept of each of stdout and stderr;
	// the rest is read and counted but dropped. Default 1 MiB.
	MaxCaptureBytes int
	// Retention is the number of finished background processes kept for
	// Wait and List, oldest dropped first. Default 64.
	Retention int
	// TermGrace is how long a process group has between TERM and KILL.
	// Default 2 s.
	TermGrace time.Duration
	// DrainTimeout is how long output is still read once the process
	// group is gone; a process that escaped the group and holds a pipe is
	// not waited for longer (<stream>_drain_timed_out). Default 2 s.
	DrainTimeout time.Duration
	// Unsandboxed runs commands directly on the host instead of in a
	// sandbox. UNSAFE: a command then sees the host process through /proc
	// (its environment, API keys included, its command line and memory)
	// and can write wherever the host's user may. By default (false) every
	// command runs in a bubblewrap sandbox (see the LocalShell doc), and
	// NewLocalShell fails with ErrNoSandbox when none can be made here.
	Unsandboxed bool
	// SandboxReadOnly are host paths (absolute, existing) a sandboxed
	// command may read besides the system's directories (/usr, /bin, /lib,
	// /etc...) and the root: programs installed elsewhere (/opt/tool, a
	// virtualenv), data to read. Nothing else of the host is visible.
	SandboxReadOnly []string
}

func (o LocalShellOptions) withDefaults() LocalShellOptions {
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = DefaultMaxProcesses
	}
	if o.MaxCaptureBytes <= 0 {
		o.MaxCaptureBytes = DefaultMaxCaptureBytes
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.TermGrace <= 0 {
		o.TermGrace = DefaultTermGrace
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	return o
}

// inheritedEnv are the host environment variables a command inherits;
// the rest (API keys, tokens) stay in the host. Command.Env adds to them.
var inheritedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM"}

// LocalShell runs commands on the local machine, each in its own process
// group, with its working directory inside a root directory. It
// implements [Shell] and [Processes] under a [ShellPolicy].
//
// Scripts run as "/bin/sh -c script": not the user's $SHELL as a login
// shell, whose profile files would make runs depend on the host, slow
// every command and may print into its output. Programs run directly,
// with literal arguments.
//
// Unless LocalShellOptions.Unsandboxed is set, every command runs in a
// bubblewrap sandbox (Linux only): a PID namespace with its own /proc, so
// the host process and its environment are out of reach; the file system
// read-only except the root and a fresh /tmp; the host's network and user.
// The sandbox's processes, grandchildren included, die with the host, even
// when it is killed with SIGKILL. NewLocalShell fails with ErrNoSandbox when
// bubblewrap is missing or the kernel refuses its namespaces (checked once
// per process, and only for a policy that allows running commands).
// Unsandboxed, the started process still dies with the host (its
// parent-death signal), but not what it started.
//
// Every process leads a new process group. When a run's context ends or
// its timeout passes, the group gets TERM and, TermGrace later, KILL; when
// the leading process exits, what remains of its group is killed, so no
// child outlives the command (a process that deliberately leaves the group,
// with setsid say, is beyond this: untrusted code needs an external
// sandbox). Stdout and stderr are read continuously and kept up to
// MaxCaptureBytes each; results carry <stream>_bytes,
// <stream>_captured_bytes and <stream>_truncated metadata, plus
// <stream>_drain_timed_out when reading had to stop without seeing the
// stream's end. Commands inherit only a few host environment variables
// (PATH, HOME, USER, LOGNAME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR, TERM).
//
// The working directory is confined to the root (symlinks resolved), but
// that only says where a command starts: a script may cd anywhere its
// user may. Close kills every process still running; use the shell no more
// after it. A LocalShell is safe for concurrent use.
type LocalShell struct {
	root   string
	policy ShellPolicy
	opts   LocalShellOptions
	bwrap  string // the sandbox launcher; "" when unsandboxed

	mu       sync.Mutex
	closed   bool
	live     map[*localProc]struct{}
	bg       map[string]*localProc
	finished []string // finished background processes, oldest first
	seq      int64
}

var (
	_ Shell     = (*LocalShell)(nil)
	_ Processes = (*LocalShell)(nil)
)

// NewLocalShell returns a shell whose commands start in root (an existing
// directory; its symlinks are resolved once, here) under policy. Unless
// opts.Unsandboxed is set, a policy that allows running commands needs a
// sandbox: without one it fails with an error wrapping ErrNoSandbox.
func NewLocalShell(root string, policy ShellPolicy, opts LocalShellOptions) (*LocalShell, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("env: shell root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("env: shell root %q: %w", root, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("env: shell root %q is not a directory", root)
	}
	opts.SandboxReadOnly = slices.Clone(opts.SandboxReadOnly)
	for _, p := range opts.SandboxReadOnly {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("env: sandbox read-only path %q is not absolute", p)
		}
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("env: sandbox read-only path: %w", err)
		}
	}
	var bwrap string
	if policy.AllowExecute && !opts.Unsandboxed {
		if bwrap, err = findSandbox(); err != nil {
			return nil, err
		}
	}
	policy.AllowedPrograms = slices.Clone(policy.AllowedPrograms)
	return &LocalShell{
		root: real, policy: policy, opts: opts.withDefaults(), bwrap: bwrap,
		live: map[*localProc]struct{}{}, bg: map[string]*localProc{},
	}, nil
}

// Root returns the resolved root directory.
func (s *LocalShell) Root() string { return s.root }

// Policy returns the shell's policy.
func (s *LocalShell) Policy() ShellPolicy {
	p := s.policy
	p.AllowedPrograms = slices.Clone(p.AllowedPrograms)
	return p
}

// localProc is one started process.
type localProc struct {
	id, display string
	cmd         *exec.Cmd
	pgid        int
	background  bool
	seq         int64 // start order
	timeout     time.Duration
	stdout      *capture
	stderr      *capture
	readers     [2]*os.File
	drained     [2]chan struct{}

	// Sandboxed processes only: the sandbox's init (the leader of the
	// group that holds the command), known once inner is closed (0 when
	// bwrap ended without reporting one).
	info     *os.File
	inner    chan struct{}
	innerPid int
	// signalled is set when a signal was sent to the process: a sandboxed
	// command killed by signal n is reported by bwrap as exit code 128+n,
	// which then counts as that signal.
	signalled atomic.Bool

	stdinMu sync.Mutex
	stdin   *os.File // background processes only; nil once closed

	killed   atomic.Bool
	timedOut atomic.Bool
	termOnce sync.Once
	exited   chan struct{} // the leading process was reaped
	done     chan struct{} // exited, the group killed and the streams read

	// Set before done is closed.
	exitCode      int
	signal        int
	drainTimedOut [2]bool
}

// capture keeps the first max bytes written to it and counts them all.
type capture struct {
	mu     sync.Mutex
	max    int
	buf    []byte
	total  int64
	failed bool
}

func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(b))
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

func (c *capture) snapshot() (text string, total int64, captured int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.ToValidUTF8(string(c.buf), "\uFFFD"), c.total, len(c.buf)
}

// environ is the environment of cmd: the inherited host variables, then
// cmd.Env.
func environ(cmd Command) []string {
	env := map[string]string{}
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	maps.Copy(env, cmd.Env)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// dir resolves a command's working directory inside the root.
func (s *LocalShell) dir(cmd Command) (string, error) {
	c, err := Clean(cmd.Dir)
	if err != nil {
		var e *Error
		if asError(err, &e) {
			e.Op = "exec"
		}
		return "", err
	}
	full := filepath.Join(s.root, filepath.FromSlash(c))
	real, err := filepath.EvalSymlinks(full)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &Error{Op: "exec", Path: cmd.Dir, Err: wrapf(ErrNotFound, "the working directory does not exist")}
	}
	if err != nil {
		return "", &Error{Op: "exec", Path: cmd.Dir, Err: err}
	}
	if rel, err := filepath.Rel(s.root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &Error{Op: "exec", Path: cmd.Dir, Err: wrapf(ErrAccessDenied, "the working directory leads outside the root through a symlink")}
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", &Error{Op: "exec", Path: cmd.Dir, Err: wrapf(ErrInvalidRequest, "the working directory is not a directory")}
	}
	return real, nil
}

// start checks cmd, takes a process slot and starts it.
func (s *LocalShell) start(cmd Command, background bool) (*localProc, error) {
	if err := s.policy.Check(cmd); err != nil {
		return nil, err
	}
	if err := checkEnv(cmd); err != nil {
		return nil, err
	}
	if cmd.Timeout < 0 {
		return nil, &Error{Op: "exec", Path: cmd.Display(), Err: wrapf(ErrInvalidRequest, "a timeout cannot be negative")}
	}
	dir, err := s.dir(cmd)
	if err != nil {
		return nil, err
	}
	var c *exec.Cmd
	if cmd.Program != "" {
		c = exec.Command(cmd.Program, cmd.Args...)
	} else {
		c = exec.Command("/bin/sh", "-c", cmd.Script)
	}
	c.Dir, c.Env, c.SysProcAttr = dir, environ(cmd), groupAttr()
	var info *os.File
	if s.bwrap != "" {
		if cmd.Program != "" && c.Err == nil {
			_, c.Err = resolveProgram(cmd.Program, dir)
		}
		if c.Err != nil {
			return nil, &Error{Op: "exec", Path: cmd.Display(), Err: wrapf(ErrNotFound, "%v", c.Err)}
		}
		readOnly := s.opts.SandboxReadOnly
		if cmd.Program != "" {
			// A program the host finds outside the system's directories
			// (a pyenv, a virtualenv, /opt) runs with its installation.
			readOnly = append(slices.Clone(readOnly), programMounts(c.Path, s.root)...)
		}
		if c, info, err = sandboxed(s.bwrap, s.root, readOnly, c); err != nil {
			return nil, &Error{Op: "exec", Path: cmd.Display(), Err: err}
		}
	}
	p := &localProc{
		display: cmd.Display(), cmd: c, background: background, timeout: cmd.Timeout,
		stdout: &capture{max: s.opts.MaxCaptureBytes}, stderr: &capture{max: s.opts.MaxCaptureBytes},
		drained: [2]chan struct{}{make(chan struct{}), make(chan struct{})},
		exited:  make(chan struct{}), done: make(chan struct{}),
		info: info,
	}
	if info != nil {
		p.inner = make(chan struct{})
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, &Error{Op: "exec", Path: p.display, Err: wrapf(ErrInvalidRequest, "the shell is closed")}
	}
	if len(s.live) >= s.opts.MaxProcesses {
		s.mu.Unlock()
		return nil, &Error{Op: "exec", Path: p.display, Err: wrapf(ErrLimit,
			"%d processes are already running, the most this shell allows; wait for one to end or kill one", s.opts.MaxProcesses)}
	}
	// Spawning under the lock keeps Close from seeing a process that has
	// no group yet (and starts are quick: a fork and an exec).
	err = s.spawn(p)
	if err == nil {
		s.live[p] = struct{}{}
		s.seq++
		p.seq = s.seq
	}
	s.mu.Unlock()
	if err != nil {
		if info != nil {
			info.Close()
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Op: "exec", Path: p.display, Err: wrapf(ErrNotFound, "%v", err)}
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, &Error{Op: "exec", Path: p.display, Err: wrapf(ErrAccessDenied, "%v", err)}
		}
		return nil, &Error{Op: "exec", Path: p.display, Err: err}
	}
	go s.reap(p)
	return p, nil
}

// spawn creates the pipes and starts the process; on failure nothing is
// left open.
func (s *LocalShell) spawn(p *localProc) (err error) {
	var opened []*os.File
	defer func() {
		if err != nil {
			for _, f := range opened {
				f.Close()
			}
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			opened = append(opened, r, w)
		}
		return r, w, err
	}
	outR, outW, err := pipe()
	if err != nil {
		return err
	}
	errR, errW, err := pipe()
	if err != nil {
		return err
	}
	var inR *os.File
	if p.background {
		if inR, p.stdin, err = pipe(); err != nil {
			return err
		}
		p.cmd.Stdin = inR
	}
	// *os.File streams go to the child as they are: no copying goroutine
	// inside exec, so Wait returns when the process exits.
	p.cmd.Stdout, p.cmd.Stderr = outW, errW
	err = spawn.Start(p.cmd)
	for _, f := range p.cmd.ExtraFiles {
		f.Close() // the child's copies (a sandbox's pipes)
	}
	if err != nil {
		return err
	}
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if p.info != nil {
		go func() {
			pid := readSandboxInit(p.info)
			if pid > 0 {
				waitSandboxCommand(pid, p.exited)
			}
			p.innerPid = pid
			close(p.inner)
		}()
	}
	p.pgid = p.cmd.Process.Pid
	p.id = "process_" + strconv.Itoa(p.pgid)
	p.readers = [2]*os.File{outR, errR}
	for i, c := range []*capture{p.stdout, p.stderr} {
		go drain(p.readers[i], c, p.drained[i])
	}
	return nil
}

// drain copies r into c until r ends or is closed.
func drain(r *os.File, c *capture, done chan struct{}) {
	defer close(done)
	_, err := io.Copy(c, r)
	if err != nil && !errors.Is(err, os.ErrClosed) {
		c.mu.Lock()
		c.failed = true
		c.mu.Unlock()
	}
	r.Close()
}

// reap waits for the leading process, kills what is left of its group,
// reads the rest of the output and releases the process's slot.
func (s *LocalShell) reap(p *localProc) {
	_ = p.cmd.Wait()
	p.exitCode, p.signal = exitStatus(p.cmd.ProcessState)
	if p.inner != nil && p.signal == 0 && p.signalled.Load() && p.exitCode > 128 && p.exitCode <= 128+64 {
		p.signal = p.exitCode - 128
	}
	close(p.exited)
	killLeftovers(p.pgid)
	end := time.Now().Add(s.opts.DrainTimeout)
	deadline := time.NewTimer(s.opts.DrainTimeout)
	for i, d := range p.drained {
		select {
		case <-d:
		case <-deadline.C:
			p.drainTimedOut[i] = true
			p.readers[i].Close()
			<-d
		}
	}
	deadline.Stop()
	// A killed member of the group takes a moment to finish exiting (under
	// load, a long one): the command is done once its group is gone, so
	// that nothing it started still runs when Run returns. Polled (no event
	// says that a group emptied), within the streams' bound. A sandbox
	// needs no wait: its namespace was emptied before bwrap could exit.
	for delay := 100 * time.Microsecond; !groupGone(p.pgid) && time.Now().Before(end); delay = min(2*delay, 10*time.Millisecond) {
		killLeftovers(p.pgid)
		time.Sleep(delay)
	}
	p.closeStdin()
	s.mu.Lock()
	delete(s.live, p)
	if p.background {
		s.finished = append(s.finished, p.id)
		for len(s.finished) > s.opts.Retention {
			delete(s.bg, s.finished[0])
			s.finished = s.finished[1:]
		}
	}
	s.mu.Unlock()
	close(p.done)
}

// terminate sends TERM to p's group and, unless its leading process
// exits within the grace period, KILL (once its leader exits, reap kills
// the rest). It returns when p is done.
func (s *LocalShell) terminate(p *localProc) {
	p.termOnce.Do(func() {
		p.killed.Store(true)
		p.signalled.Store(true)
		termGroup(p.group())
		t := time.NewTimer(s.opts.TermGrace)
		defer t.Stop()
		select {
		case <-p.exited:
		case <-t.C:
			killGroup(p.group())
			killGroup(p.pgid)
		}
	})
	<-p.done
}

// group returns the process group that holds p's command: its own, or for
// a sandboxed command the sandbox init's, once bwrap reported it (until
// then, and if it never does, the group of bwrap itself, whose end takes
// the sandbox with it). The init ignores the signals it has no handler
// for, KILL aside, so a signal reaches the command and KILL ends the
// whole sandbox.
func (p *localProc) group() int {
	if p.inner == nil {
		return p.pgid
	}
	select {
	case <-p.inner:
	case <-p.exited:
	}
	// The init's pid stays reserved while bwrap lives (bwrap reaps it just
	// before it exits itself).
	select {
	case <-p.exited:
		return p.pgid
	default:
	}
	if p.innerPid > 0 {
		return p.innerPid
	}
	return p.pgid
}

func (p *localProc) closeStdin() {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin != nil {
		p.stdin.Close()
		p.stdin = nil
	}
}

// metadata returns the capture facts and, once p is done, how it ended.
func (p *localProc) metadata() (stdout, stderr string, md map[string]any) {
	md = map[string]any{"pid": p.pgid}
	finished := false
	select {
	case <-p.done:
		finished = true
	default:
	}
	streams := []string{"stdout", "stderr"}
	texts := make([]string, 2)
	for i, c := range []*capture{p.stdout, p.stderr} {
		text, total, captured := c.snapshot()
		texts[i] = text
		name := streams[i]
		md[name+"_bytes"] = total
		md[name+"_captured_bytes"] = captured
		md[name+"_truncated"] = total > int64(captured)
		if finished && p.drainTimedOut[i] {
			md[name+"_drain_timed_out"] = true
		}
		c.mu.Lock()
		if c.failed {
			md[name+"_capture_failed"] = true
		}
		c.mu.Unlock()
	}
	if finished && p.signal != 0 {
		md["signal"] = p.signal
	}
	if p.timedOut.Load() {
		md["timed_out"] = true
		md["timeout_seconds"] = p.timeout.Seconds()
		texts[1] += fmt.Sprintf("\nshell command timed out after %s; its process group was killed\n", p.timeout)
	}
	return texts[0], texts[1], md
}

func (p *localProc) output() Output {
	stdout, stderr, md := p.metadata()
	return Output{ExitCode: p.exitCode, Stdout: stdout, Stderr: stderr, Metadata: md}
}

func (p *localProc) snapshot() Process {
	stdout, stderr, md := p.metadata()
	out := Process{ID: p.id, Command: p.display, Status: ProcessRunning, Stdout: stdout, Stderr: stderr, Metadata: md}
	select {
	case <-p.done:
		code := p.exitCode
		out.ExitCode = &code
		switch {
		case p.killed.Load():
			out.Status = ProcessKilled
		case code == 0:
			out.Status = ProcessCompleted
		default:
			out.Status = ProcessFailed
		}
	default:
	}
	return out
}

// Run runs cmd to completion. When its Timeout (if not 0) passes, its
// process group is terminated and the output says timed_out; when ctx
// ends, the group is terminated and Run returns the output so far with
// ctx's error.
func (s *LocalShell) Run(ctx context.Context, cmd Command) (Output, error) {
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	p, err := s.start(cmd, false)
	if err != nil {
		return Output{}, err
	}
	var timeout <-chan time.Time
	if cmd.Timeout > 0 {
		t := time.NewTimer(cmd.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-p.done:
	case <-timeout:
		p.timedOut.Store(true)
		s.terminate(p)
	case <-ctx.Done():
		s.terminate(p)
		return p.output(), ctx.Err()
	}
	return p.output(), nil
}

// Start starts cmd in the background and returns its first snapshot. The
// process outlives ctx (it ends by itself, by its Timeout if not 0, by
// Kill, by Close, or by the Kill of the [ProcessScope] ctx carries, see
// [WithProcessScope]); ctx only bounds the start.
func (s *LocalShell) Start(ctx context.Context, cmd Command) (Process, error) {
	if err := ctx.Err(); err != nil {
		return Process{}, err
	}
	p, err := s.start(cmd, true)
	if err != nil {
		return Process{}, err
	}
	s.mu.Lock()
	s.bg[p.id] = p
	s.mu.Unlock()
	if sc := scopeOf(ctx); sc != nil && !sc.add(s, p) {
		s.terminate(p)
		return p.snapshot(), nil
	}
	if cmd.Timeout > 0 {
		go func() {
			t := time.NewTimer(cmd.Timeout)
			defer t.Stop()
			select {
			case <-p.done:
			case <-t.C:
				p.timedOut.Store(true)
				s.terminate(p)
			}
		}()
	}
	return p.snapshot(), nil
}

func (s *LocalShell) lookup(op, id string) (*localProc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.bg[id]
	if !ok {
		return nil, &Error{Op: op, Path: id, Err: wrapf(ErrNotFound, "no such background process (shell_status lists them)")}
	}
	return p, nil
}

// Wait waits up to timeout (0: not at all) for the process id to end and
// returns its snapshot; it never kills it. When ctx ends first, it returns
// ctx's error.
func (s *LocalShell) Wait(ctx context.Context, id string, timeout time.Duration) (Process, error) {
	p, err := s.lookup("wait", id)
	if err != nil {
		return Process{}, err
	}
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
		case <-ctx.Done():
			return p.snapshot(), ctx.Err()
		}
	}
	return p.snapshot(), nil
}

// List returns the snapshots of the background processes, running and
// retained, in the order they started.
func (s *LocalShell) List(context.Context) ([]Process, error) {
	s.mu.Lock()
	procs := slices.Collect(maps.Values(s.bg))
	s.mu.Unlock()
	slices.SortFunc(procs, func(a, b *localProc) int { return int(a.seq - b.seq) })
	out := make([]Process, 0, len(procs))
	for _, p := range procs {
		out = append(out, p.snapshot())
	}
	return out, nil
}

// Input writes text and a newline to the process's stdin and, when
// closeStdin is true, closes it (text may then be empty to only close).
func (s *LocalShell) Input(_ context.Context, id, text string, closeStdin bool) (Process, error) {
	p, err := s.lookup("input", id)
	if err != nil {
		return Process{}, err
	}
	p.stdinMu.Lock()
	if p.stdin == nil {
		p.stdinMu.Unlock()
		return p.snapshot(), &Error{Op: "input", Path: id, Err: wrapf(ErrInvalidRequest, "the process's stdin is closed or it has ended")}
	}
	var werr error
	if text != "" || !closeStdin {
		_ = p.stdin.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, werr = io.WriteString(p.stdin, text+"\n")
	}
	p.stdinMu.Unlock()
	if closeStdin {
		p.closeStdin()
	}
	if werr != nil {
		return p.snapshot(), &Error{Op: "input", Path: id, Err: wrapf(ErrInvalidRequest, "writing to the process's stdin: %v", werr)}
	}
	return p.snapshot(), nil
}

// Signal sends signal (a Unix signal number, 1 to 31) to the process's
// group.
func (s *LocalShell) Signal(_ context.Context, id string, signal int) (Process, error) {
	p, err := s.lookup("signal", id)
	if err != nil {
		return Process{}, err
	}
	if signal < 1 || signal > 31 {
		return p.snapshot(), &Error{Op: "signal", Path: id, Err: wrapf(ErrInvalidRequest, "%d is not a signal number (1 to 31)", signal)}
	}
	select {
	case <-p.done:
		return p.snapshot(), &Error{Op: "signal", Path: id, Err: wrapf(ErrInvalidRequest, "the process has ended")}
	default:
	}
	p.signalled.Store(true)
	if err := signalGroup(p.group(), signal); err != nil {
		return p.snapshot(), &Error{Op: "signal", Path: id, Err: err}
	}
	return p.snapshot(), nil
}

// Kill terminates the process's group (TERM, then KILL after the grace
// period) and returns its final snapshot; killing an ended process only
// returns its snapshot.
func (s *LocalShell) Kill(_ context.Context, id string) (Process, error) {
	p, err := s.lookup("kill", id)
	if err != nil {
		return Process{}, err
	}
	select {
	case <-p.done:
	default:
		s.terminate(p)
	}
	return p.snapshot(), nil
}

// Close terminates every running process group, foreground and
// background, waits until they are gone and refuses later commands. It is
// safe to call more than once.
func (s *LocalShell) Close() error {
	s.mu.Lock()
	s.closed = true
	procs := slices.Collect(maps.Keys(s.live))
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { s.terminate(p) })
	}
	wg.Wait()
	return nil
}
