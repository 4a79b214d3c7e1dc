//go:build !unix

package mcp

import "os/exec"

// ownGroup and killGroup have no process groups to use here: stopping a
// server stops its process only.
func ownGroup(*exec.Cmd)  {}
func killGroup(*exec.Cmd) {}
