//go:build !linux

package sqlite

import "os"

// shmGuard: OFD locks exist on Linux only; elsewhere the DB relies on
// checkFiles alone (see files.go).
func shmGuard(string) *os.File { return nil }
