package bridge

import (
	"syscall"
	"testing"
)

// Both ends of a run pipe are non-blocking (items and completions are
// read and written without waiting) and closed on exec.
func TestNonblockingPipe(t *testing.T) {
	fds, err := nonblockingPipe()
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		defer syscall.Close(fd)
		fl, _, e1 := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
		fd2, _, e2 := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if e1 != 0 || e2 != 0 || fl&syscall.O_NONBLOCK == 0 || fd2&syscall.FD_CLOEXEC == 0 {
			t.Fatalf("fd %d: flags %#x, fd flags %#x (%v, %v)", fd, fl, fd2, e1, e2)
		}
	}
}
