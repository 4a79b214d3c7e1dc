package bridge

import (
	"fmt"
	"syscall"
)

// nonblockingPipe makes a pipe whose ends are non-blocking and closed on
// exec, in one system call: a run makes two, on the way to its first item.
func nonblockingPipe() ([2]int, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		return fds, fmt.Errorf("creating a run pipe: %w", err)
	}
	return fds, nil
}
