//go:build !unix

package env

import "io/fs"

// linkCount returns 1: the link count is read on Unix only.
func linkCount(fs.FileInfo) uint64 { return 1 }
