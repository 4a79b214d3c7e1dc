package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// ScratchDir is where providers keep scratch files, relative to the root.
const ScratchDir = ".starweaver/scratch"

// LocalOptions configure a local provider. The zero value is a writable
// provider named "local".
type LocalOptions struct {
	// ID names the provider (default "local").
	ID string
	// ReadOnly refuses every write with ErrAccessDenied, except
	// WriteScratch (see Local).
	ReadOnly bool
	// AllowHardLinks lets reads and writes reach a regular file that has
	// more than one hard link. By default such a file is refused with
	// ErrAccessDenied: a hard link inside the root may name a file
	// outside it (which only the file's owner, or root, could have made),
	// and reading or writing it would reach that file.
	AllowHardLinks bool
}

// Local is a provider over a directory of the host, confined to it by
// construction: every operation goes through an [os.Root] opened on the
// directory, so no path, symbolic link or link swapped in while an
// operation runs reaches a file outside it (the kernel resolves each path
// component beneath the root; nothing here compares path strings).
//
// On top of that confinement:
//   - a path naming a place outside the root (absolute, "..") is an *Error
//     wrapping ErrInvalidRequest; a symbolic link resolving outside it one
//     wrapping ErrAccessDenied; a symbolic link inside the root pointing
//     inside is followed for reads;
//   - writes (WriteFile, Mkdir, Remove, Rename, Copy's destination) refuse
//     a path any of whose existing components is a symbolic link, so a
//     write lands where its path says (removing a link itself is allowed);
//   - Walk reports a directory symlink (Symlink true) and never enters it.
//
// A read-only provider refuses every write with ErrAccessDenied. Its
// scratch files (WriteScratch, which tools use to spill large outputs)
// live in a private temporary directory instead of ScratchDir under the
// root, so a read-only root is never modified; that directory is mounted
// at ScratchDir for ReadFile, Stat and ReadDir, and Close removes it. A
// writable provider keeps scratch files in ScratchDir under the root.
//
// Local is safe for concurrent use. The zero value is not usable; use
// NewLocal.
type Local struct {
	id       string
	root     *os.Root
	readOnly bool
	links    bool // AllowHardLinks

	mu         sync.Mutex
	scratch    *os.Root // read-only mode: the temporary scratch root
	scratchDir string
}

var _ Provider = (*Local)(nil)

// NewLocal opens the directory root as a provider. It fails when root is
// not an existing directory.
func NewLocal(root string, opts LocalOptions) (*Local, error) {
	if root == "" {
		return nil, errors.New("env: a local environment needs a root directory")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("env: local root %q: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("env: local root %q: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("env: local root %q is not a directory", root)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("env: local root %q: %w", root, err)
	}
	id := opts.ID
	if id == "" {
		id = "local"
	}
	return &Local{id: id, root: r, readOnly: opts.ReadOnly, links: opts.AllowHardLinks}, nil
}

// ID returns the provider's id.
func (l *Local) ID() string { return l.id }

// Root returns the absolute path of the provider's root directory.
func (l *Local) Root() string { return l.root.Name() }

// ReadOnly reports whether the provider refuses writes.
func (l *Local) ReadOnly() bool { return l.readOnly }

// Close releases the root and removes a read-only provider's temporary
// scratch directory. Operations after Close fail.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.root.Close()
	if l.scratch != nil {
		_ = l.scratch.Close()
		err = errors.Join(err, os.RemoveAll(l.scratchDir))
		l.scratch = nil
	}
	return err
}

func (l *Local) clean(op, p string) (string, error) {
	c, err := Clean(p)
	if err != nil {
		var e *Error
		if asError(err, &e) {
			e.Op = op
		}
		return "", err
	}
	return c, nil
}

func (l *Local) writable(op, p string) error {
	if l.readOnly {
		return &Error{Op: op, Path: p, Err: wrapf(ErrAccessDenied, "the environment is read-only")}
	}
	return nil
}

// mapErr turns an os error into an *Error naming the requested path p
// (never the host's absolute path).
func mapErr(op, p string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	inner := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		inner = le.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Op: op, Path: p, Err: ErrNotFound}
	case errors.Is(err, syscall.ENXIO):
		// A FIFO opened for writing without blocking, with no reader.
		return &Error{Op: op, Path: p, Err: errNotRegular}
	case strings.Contains(inner.Error(), "escapes"):
		return &Error{Op: op, Path: p, Err: wrapf(ErrAccessDenied, "the path resolves outside the environment's root")}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Op: op, Path: p, Err: wrapf(ErrAccessDenied, "%v", inner)}
	case errors.Is(err, fs.ErrExist):
		return &Error{Op: op, Path: p, Err: wrapf(ErrInvalidRequest, "already exists")}
	case errors.Is(err, syscall.ENOTDIR):
		return &Error{Op: op, Path: p, Err: wrapf(ErrInvalidRequest, "a parent of the path is not a directory")}
	case errors.Is(err, syscall.EISDIR):
		return &Error{Op: op, Path: p, Err: wrapf(ErrInvalidRequest, "is a directory")}
	case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST):
		return &Error{Op: op, Path: p, Err: wrapf(ErrInvalidRequest, "%v", inner)}
	case errors.Is(err, syscall.ELOOP):
		return &Error{Op: op, Path: p, Err: wrapf(ErrAccessDenied, "too many symbolic links")}
	}
	return &Error{Op: op, Path: p, Err: inner}
}

// scratchPath reports whether c is inside ScratchDir and, for a read-only
// provider with a scratch directory, returns its root and the path in it.
func (l *Local) scratchRoot(c string) (*os.Root, string, bool) {
	rest, ok := strings.CutPrefix(c, ScratchDir+"/")
	if !ok && c != ScratchDir {
		return nil, "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.scratch == nil {
		return nil, "", false
	}
	if rest == "" {
		rest = "."
	}
	return l.scratch, rest, true
}

// reader returns the root a read of c goes to and the path in it.
func (l *Local) reader(c string) (*os.Root, string) {
	if r, rest, ok := l.scratchRoot(c); ok {
		return r, rest
	}
	return l.root, c
}

// noSymlinks refuses a write to c when an existing component of it (the
// last one too, unless last is false) is a symbolic link. Components that
// do not exist end the check: the write creates them.
func (l *Local) noSymlinks(op, p, c string, last bool) error {
	if c == "." {
		return nil
	}
	parts := strings.Split(c, "/")
	if !last {
		parts = parts[:len(parts)-1]
	}
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		fi, err := l.root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return mapErr(op, p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &Error{Op: op, Path: p, Err: wrapf(ErrAccessDenied, "%q is a symbolic link; writes never go through one", sub)}
		}
		if !fi.IsDir() && i < len(parts)-1 {
			return &Error{Op: op, Path: p, Err: wrapf(ErrInvalidRequest, "%q is not a directory", sub)}
		}
	}
	return nil
}

func info(c string, fi fs.FileInfo) FileInfo {
	return FileInfo{Path: c, Size: fi.Size(), IsDir: fi.IsDir(), ModTime: fi.ModTime(), Symlink: fi.Mode()&fs.ModeSymlink != 0}
}

// ReadFile returns up to length bytes of the file p from offset.
func (l *Local) ReadFile(_ context.Context, p string, offset, length int64) ([]byte, error) {
	c, err := l.clean("read", p)
	if err != nil {
		return nil, err
	}
	r, name := l.reader(c)
	f, fi, err := openRegular(r, name, os.O_RDONLY, 0, l.links)
	if err != nil {
		return nil, mapErr("read", p, err)
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, &Error{Op: "read", Path: p, Err: wrapf(ErrInvalidRequest, "is a directory")}
	}
	size := fi.Size()
	if offset < 0 || offset > size {
		offset = size
	}
	n := size - offset
	if length >= 0 && length < n {
		n = length
	}
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, mapErr("read", p, err)
	}
	return buf[:got], nil
}

// WriteFile writes the file p.
func (l *Local) WriteFile(_ context.Context, p string, data []byte, opts WriteOptions) error {
	c, err := l.clean("write", p)
	if err != nil {
		return err
	}
	if err := l.writable("write", p); err != nil {
		return err
	}
	if c == "." {
		return &Error{Op: "write", Path: p, Err: wrapf(ErrInvalidRequest, "is a directory")}
	}
	if err := l.noSymlinks("write", p, c, true); err != nil {
		return err
	}
	if fi, err := l.root.Lstat(c); err == nil && fi.IsDir() {
		return &Error{Op: "write", Path: p, Err: wrapf(ErrInvalidRequest, "is a directory")}
	}
	if err := l.parent("write", p, c, opts.Parents); err != nil {
		return err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if opts.Append {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, _, err := openRegular(l.root, c, flag, 0o644, l.links)
	if err != nil {
		return mapErr("write", p, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return mapErr("write", p, err)
	}
	return mapErr2("write", p, f.Close())
}

func mapErr2(op, p string, err error) error {
	if err == nil {
		return nil
	}
	return mapErr(op, p, err)
}

// parent checks that the parent directory of c exists, creating it when
// create is true.
func (l *Local) parent(op, p, c string, create bool) error {
	dir := path.Dir(c)
	if dir == "." {
		return nil
	}
	fi, err := l.root.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return &Error{Op: op, Path: p, Err: wrapf(ErrInvalidRequest, "the parent %q is not a directory", dir)}
	case !errors.Is(err, fs.ErrNotExist):
		return mapErr(op, p, err)
	case !create:
		return &Error{Op: op, Path: p, Err: wrapf(ErrNotFound, "the parent directory %q does not exist", dir)}
	}
	return mapErr2(op, p, l.root.MkdirAll(dir, 0o755))
}

// Stat describes p; a symbolic link is described by its target (and
// Symlink set), or by itself when its target is missing.
func (l *Local) Stat(_ context.Context, p string) (FileInfo, error) {
	c, err := l.clean("stat", p)
	if err != nil {
		return FileInfo{}, err
	}
	r, name := l.reader(c)
	lfi, err := r.Lstat(name)
	if err != nil {
		return FileInfo{}, mapErr("stat", p, err)
	}
	if lfi.Mode()&fs.ModeSymlink == 0 {
		return info(c, lfi), nil
	}
	fi, err := r.Stat(name)
	if err != nil {
		return FileInfo{}, mapErr("stat", p, err)
	}
	out := info(c, fi)
	out.Symlink = true
	return out, nil
}

// entries lists the directory name of r, sorted, with paths under c. A
// symbolic link is reported as itself (Symlink), as a directory when its
// target is one inside the root.
func entries(r *os.Root, name, c string) ([]FileInfo, error) {
	// Without blocking: a directory swapped for a FIFO must not hang the
	// listing (ReadDir then fails on the non-directory).
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]FileInfo, 0, len(des))
	for _, de := range des {
		child := de.Name()
		if c != "." {
			child = c + "/" + de.Name()
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		e := info(child, fi)
		if e.Symlink {
			if t, err := r.Stat(path.Join(name, de.Name())); err == nil {
				e.IsDir = t.IsDir()
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// ReadDir lists the directory p.
func (l *Local) ReadDir(_ context.Context, p string) ([]FileInfo, error) {
	c, err := l.clean("list", p)
	if err != nil {
		return nil, err
	}
	r, name := l.reader(c)
	fi, err := r.Stat(name)
	if err != nil {
		return nil, mapErr("list", p, err)
	}
	if !fi.IsDir() {
		return nil, &Error{Op: "list", Path: p, Err: wrapf(ErrInvalidRequest, "is a file")}
	}
	out, err := entries(r, name, c)
	if err != nil {
		return nil, mapErr("list", p, err)
	}
	return out, nil
}

// Walk visits every entry under root, depth first in name order, never
// entering a symbolic link.
func (l *Local) Walk(ctx context.Context, root string, fn func(FileInfo) error) error {
	c, err := l.clean("walk", root)
	if err != nil {
		return err
	}
	fi, err := l.root.Stat(c)
	if err != nil {
		return mapErr("walk", root, err)
	}
	if !fi.IsDir() {
		return &Error{Op: "walk", Path: root, Err: ErrNotFound}
	}
	return l.walk(ctx, root, c, fn)
}

func (l *Local) walk(ctx context.Context, root, dir string, fn func(FileInfo) error) error {
	es, err := entries(l.root, dir, dir)
	if err != nil {
		return mapErr("walk", root, err)
	}
	for _, e := range es {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := fn(e)
		if err == SkipDir {
			continue
		}
		if err != nil {
			return err
		}
		if e.IsDir && !e.Symlink {
			if err := l.walk(ctx, root, e.Path, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// Mkdir creates the directory p.
func (l *Local) Mkdir(_ context.Context, p string, parents bool) error {
	c, err := l.clean("mkdir", p)
	if err != nil {
		return err
	}
	if err := l.writable("mkdir", p); err != nil {
		return err
	}
	if err := l.noSymlinks("mkdir", p, c, true); err != nil {
		return err
	}
	if _, err := l.root.Lstat(c); err == nil {
		return &Error{Op: "mkdir", Path: p, Err: wrapf(ErrInvalidRequest, "already exists")}
	}
	if err := l.parent("mkdir", p, c, parents); err != nil {
		return err
	}
	return mapErr2("mkdir", p, l.root.Mkdir(c, 0o755))
}

// Remove deletes p; a symbolic link is removed itself, never its target.
func (l *Local) Remove(_ context.Context, p string, recursive bool) error {
	c, err := l.clean("delete", p)
	if err != nil {
		return err
	}
	if err := l.writable("delete", p); err != nil {
		return err
	}
	if c == "." {
		return &Error{Op: "delete", Path: p, Err: wrapf(ErrInvalidRequest, "the root cannot be deleted")}
	}
	if err := l.noSymlinks("delete", p, c, false); err != nil {
		return err
	}
	fi, err := l.root.Lstat(c)
	if err != nil {
		return mapErr("delete", p, err)
	}
	if fi.IsDir() && recursive {
		return mapErr2("delete", p, l.root.RemoveAll(c))
	}
	if err := l.root.Remove(c); err != nil {
		if fi.IsDir() && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)) {
			return &Error{Op: "delete", Path: p, Err: wrapf(ErrInvalidRequest, "the directory is not empty")}
		}
		return mapErr("delete", p, err)
	}
	return nil
}

// Rename moves src to dst.
func (l *Local) Rename(_ context.Context, src, dst string, overwrite bool) error {
	s, d, err := l.transferCheck("move", src, dst, overwrite)
	if err != nil {
		return err
	}
	return mapErr2("move", dst, l.root.Rename(s, d))
}

// Copy copies src to dst; in a tree, symbolic links to files are copied
// as the files they point to and links to directories are skipped.
func (l *Local) Copy(ctx context.Context, src, dst string, overwrite bool) error {
	s, d, err := l.transferCheck("copy", src, dst, overwrite)
	if err != nil {
		return err
	}
	fi, err := l.root.Stat(s)
	if err != nil {
		return mapErr("copy", src, err)
	}
	if !fi.IsDir() {
		return l.copyFile(src, dst, s, d)
	}
	if err := l.root.Mkdir(d, 0o755); err != nil {
		return mapErr("copy", dst, err)
	}
	return l.walk(ctx, src, s, func(e FileInfo) error {
		target := d + strings.TrimPrefix(e.Path, s)
		switch {
		case e.IsDir && e.Symlink:
			return nil
		case e.IsDir:
			return mapErr2("copy", dst, l.root.Mkdir(target, 0o755))
		}
		return l.copyFile(src, dst, e.Path, target)
	})
}

func (l *Local) copyFile(src, dst, s, d string) error {
	in, _, err := openRegular(l.root, s, os.O_RDONLY, 0, l.links)
	if err != nil {
		return mapErr("copy", src, err)
	}
	defer in.Close()
	out, _, err := openRegular(l.root, d, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644, l.links)
	if err != nil {
		return mapErr("copy", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return mapErr("copy", dst, err)
	}
	return mapErr2("copy", dst, out.Close())
}

// transferCheck validates a move or copy: both paths clean, the provider
// writable, src existing, dst outside src, free (or overwrite, which
// removes it) and with an existing parent.
func (l *Local) transferCheck(op, src, dst string, overwrite bool) (string, string, error) {
	s, err := l.clean(op, src)
	if err != nil {
		return "", "", err
	}
	d, err := l.clean(op, dst)
	if err != nil {
		return "", "", err
	}
	if err := l.writable(op, dst); err != nil {
		return "", "", err
	}
	if s == "." {
		return "", "", &Error{Op: op, Path: src, Err: wrapf(ErrInvalidRequest, "the root cannot be moved or copied")}
	}
	if err := l.noSymlinks(op, dst, d, true); err != nil {
		return "", "", err
	}
	if op == "move" {
		if err := l.noSymlinks(op, src, s, false); err != nil {
			return "", "", err
		}
	}
	if _, err := l.root.Lstat(s); err != nil {
		return "", "", mapErr(op, src, err)
	}
	if d == s || strings.HasPrefix(d, s+"/") {
		return "", "", &Error{Op: op, Path: dst, Err: wrapf(ErrInvalidRequest, "the destination is inside the source")}
	}
	if _, err := l.root.Lstat(d); err == nil {
		if !overwrite {
			return "", "", &Error{Op: op, Path: dst, Err: wrapf(ErrInvalidRequest, "already exists (overwrite it explicitly)")}
		}
		if err := l.root.RemoveAll(d); err != nil {
			return "", "", mapErr(op, dst, err)
		}
	}
	if err := l.parent(op, dst, d, false); err != nil {
		return "", "", err
	}
	return s, d, nil
}

// WriteScratch stores data under ScratchDir (a temporary directory for a
// read-only provider, see Local) and returns its path.
func (l *Local) WriteScratch(_ context.Context, name string, data []byte) (string, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00\r\n") {
		return "", &Error{Op: "scratch", Path: name, Err: wrapf(ErrInvalidRequest, "a scratch name is one path segment")}
	}
	p := ScratchDir + "/" + name
	if l.readOnly {
		r, err := l.tempScratch()
		if err != nil {
			return "", &Error{Op: "scratch", Path: name, Err: err}
		}
		return p, mapErr2("scratch", p, r.WriteFile(name, data, 0o644))
	}
	if err := l.noSymlinks("scratch", p, p, true); err != nil {
		return "", err
	}
	if err := l.root.MkdirAll(ScratchDir, 0o755); err != nil {
		return "", mapErr("scratch", p, err)
	}
	return p, mapErr2("scratch", p, l.root.WriteFile(p, data, 0o644))
}

// tempScratch returns the read-only provider's scratch root, creating it
// on first use.
func (l *Local) tempScratch() (*os.Root, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.scratch != nil {
		return l.scratch, nil
	}
	dir, err := os.MkdirTemp("", "starweaver-scratch-")
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	l.scratch, l.scratchDir = r, dir
	// A provider dropped without Close (a host's, replaced on a session)
	// still removes its scratch directory once collected.
	runtime.AddCleanup(l, func(dir string) { _ = os.RemoveAll(dir) }, dir)
	return r, nil
}
