package spawn

import (
	"os/exec"
	"syscall"
)

// DieWithHost sets cmd's parent-death signal to SIGKILL, keeping the rest
// of its SysProcAttr. The process must then be started through [Do] (or
// [Start]) for the signal to mean the host's death.
func DieWithHost(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
