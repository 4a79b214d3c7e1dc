//go:build !unix

package env

import (
	"os"
	"syscall"
)

// Without Unix process groups, only the started process itself is
// terminated; its children are not (a Job Object would be needed).
// Scripts need /bin/sh, which such systems rarely have: run programs.

func groupAttr() *syscall.SysProcAttr { return nil }

func termGroup(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// killLeftovers does nothing: the process was reaped, its pid is free.
func killLeftovers(int) {}

// groupGone reports true: there is no group to wait for.
func groupGone(int) bool { return true }

func signalGroup(int, int) error {
	return wrapf(ErrUnsupported, "signals are only sent on Unix")
}

func exitStatus(ps *os.ProcessState) (code, signal int) {
	if ps == nil {
		return -1, 0
	}
	return ps.ExitCode(), 0
}
