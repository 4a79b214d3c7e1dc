// Package version provides the release version of the runtime, read from
// the VERSION file beside it: the one place the version is written. The
// Python package's metadata (pyproject.toml) and the library's sw_version
// read the same file.
package version

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var file string

// String returns the release version, such as "0.1.0".
func String() string { return strings.TrimSpace(file) }
