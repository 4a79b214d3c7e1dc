//go:build unix

package env

import (
	"os"
	"syscall"
)

// groupAttr makes the started process the leader of a new process group.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// termGroup and killGroup send TERM and KILL to the process group pgid;
// a group that is already gone is no error.
// A pgid of 0 or less is never signalled: kill(0, sig) would signal the
// caller's own group.
func termGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
	}
}

func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// killLeftovers kills what remains of the group pgid once its leader has
// been reaped. The group id cannot be reused while a member lives (Linux
// and the BSDs keep a pid in use while it names a group).
func killLeftovers(pgid int) { killGroup(pgid) }

// groupGone reports whether no process of the group pgid is left (a member
// that was killed stays in the group until it has finished exiting and was
// reaped by its new parent).
func groupGone(pgid int) bool {
	return pgid <= 0 || syscall.Kill(-pgid, 0) == syscall.ESRCH
}

// signalGroup sends sig to the process group pgid.
func signalGroup(pgid, sig int) error {
	if pgid <= 0 {
		return syscall.ESRCH
	}
	if err := syscall.Kill(-pgid, syscall.Signal(sig)); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// exitStatus returns the exit code, or 128+n with the signal n that
// killed the process (the shells' convention).
func exitStatus(ps *os.ProcessState) (code, signal int) {
	if ps == nil {
		return -1, 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), int(ws.Signal())
	}
	return ps.ExitCode(), 0
}
