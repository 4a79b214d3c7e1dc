//go:build !linux

package spawn

import "os/exec"

// DieWithHost does nothing here: only Linux has a parent-death signal.
func DieWithHost(*exec.Cmd) {}
