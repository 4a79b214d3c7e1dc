package env

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// The expected failures of a provider; match them with errors.Is.
var (
	ErrNotFound       = errors.New("env: not found")
	ErrAccessDenied   = errors.New("env: access denied")
	ErrInvalidRequest = errors.New("env: invalid request")
	ErrUnsupported    = errors.New("env: unsupported")
)

// Error is a failed operation on a path.
type Error struct {
	Op   string // "read", "write", "stat", "list", "mkdir", "delete", "move", "copy", "exec", ...
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("%s %q: %v", e.Op, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// FileInfo describes one file or directory.
type FileInfo struct {
	// Path is the entry's relative, slash-separated path ("." for the root).
	Path    string
	Size    int64
	IsDir   bool
	ModTime time.Time
	// Symlink reports an entry that is a symbolic link (a local provider's);
	// walks never follow one that points to a directory.
	Symlink bool
}

// Provider is a file system rooted somewhere. Paths are relative and
// slash-separated; "" and "." are the root.
type Provider interface {
	// ID names the provider ("local", "virtual", or the host's choice).
	ID() string
	// ReadFile returns up to length bytes from offset (length < 0: to the
	// end).
	ReadFile(ctx context.Context, path string, offset, length int64) ([]byte, error)
	// WriteFile writes data to path, creating it and, when parents is
	// true, its missing parent directories; appending adds to its end.
	WriteFile(ctx context.Context, path string, data []byte, opts WriteOptions) error
	// Stat describes path.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// ReadDir lists the entries of the directory path, sorted by name.
	ReadDir(ctx context.Context, path string) ([]FileInfo, error)
	// Walk calls fn for every entry under root, depth first and in name
	// order, root excluded. A directory symlink is reported, not entered.
	// fn returning fs.SkipDir skips a directory; any other error stops the
	// walk and is returned.
	Walk(ctx context.Context, root string, fn func(FileInfo) error) error
	// MkdirAll-like creation: Mkdir creates path, and its parents too
	// when parents is true.
	Mkdir(ctx context.Context, path string, parents bool) error
	// Remove deletes path; a non-empty directory needs recursive.
	Remove(ctx context.Context, path string, recursive bool) error
	// Rename moves src to dst; an existing dst needs overwrite.
	Rename(ctx context.Context, src, dst string, overwrite bool) error
	// Copy copies the file or tree src to dst; an existing dst needs
	// overwrite.
	Copy(ctx context.Context, src, dst string, overwrite bool) error
	// WriteScratch stores data under the provider's scratch directory
	// (".starweaver/scratch/<name>") and returns its path; tools spill
	// outputs too large to return there.
	WriteScratch(ctx context.Context, name string, data []byte) (string, error)
}

// WriteOptions shape a WriteFile.
type WriteOptions struct {
	Append  bool
	Parents bool
}

// SkipDir is returned by a Walk callback to skip a directory.
var SkipDir = fs.SkipDir
