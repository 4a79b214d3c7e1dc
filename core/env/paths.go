package env

import (
	"path"
	"strings"
)

// Clean normalises a requested path to the relative, slash-separated form
// providers use ("." for the root): backslashes become slashes and "."
// segments and repeated slashes go. An absolute path, a drive prefix, a
// ".." segment, or a NUL, CR or LF anywhere is an *Error wrapping
// ErrInvalidRequest naming the path: paths never leave the root by name
// (a local provider also refuses symlinks that would).
func Clean(p string) (string, error) {
	bad := func(why string) (string, error) {
		return "", &Error{Op: "path", Path: p, Err: wrapf(ErrInvalidRequest, "%s", why)}
	}
	if strings.ContainsAny(p, "\x00\r\n") {
		return bad("the path contains a NUL or line break")
	}
	q := strings.ReplaceAll(p, "\\", "/")
	if strings.HasPrefix(q, "/") || (len(q) >= 2 && q[1] == ':') {
		return bad("absolute paths are not allowed; give a path relative to the environment's root")
	}
	for _, seg := range strings.Split(q, "/") {
		if seg == ".." {
			return bad(`".." is not allowed; give a path inside the environment's root`)
		}
	}
	c := path.Clean("/" + q)[1:]
	if c == "" {
		return ".", nil
	}
	return c, nil
}

// State is the exportable state of a provider that has one (the virtual
// provider): it travels with a session's exported state.
type State struct {
	ProviderID string            `json:"provider_id"`
	Kind       string            `json:"kind"`
	Files      map[string]string `json:"files,omitempty"`
	// Binary files, base64 in JSON.
	Binary   map[string][]byte `json:"binary,omitempty"`
	Dirs     []string          `json:"dirs,omitempty"`
	Shell    map[string]Output `json:"shell_outputs,omitempty"`
	Metadata map[string]any    `json:"metadata,omitempty"`
}

// Exporter is implemented by providers whose state can be exported and
// restored with a session.
type Exporter interface {
	ExportState() (State, error)
}
