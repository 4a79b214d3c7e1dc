//go:build !linux

package bridge

import (
	"fmt"
	"syscall"
)

// nonblockingPipe makes a pipe whose ends are non-blocking and closed on
// exec.
func nonblockingPipe() ([2]int, error) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		return fds, fmt.Errorf("creating a run pipe: %w", err)
	}
	for _, fd := range fds {
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
			return fds, fmt.Errorf("configuring a run pipe: %w", err)
		}
	}
	return fds, nil
}
