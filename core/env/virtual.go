package env

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// Virtual is an in-memory, deterministic provider: files and directories
// in maps, canned shell outputs by exact command (Display), no clock (every
// modification time is the zero time), no processes. Its state is exported with a
// session (ExportState, NewVirtualFromState). The zero value is not usable;
// use NewVirtual.
type Virtual struct {
	id string

	mu       sync.RWMutex
	files    map[string][]byte
	dirs     map[string]bool // explicit directories; parents of files are implicit
	shell    map[string]Output
	readOnly bool
}

var (
	_ Provider = (*Virtual)(nil)
	_ Shell    = (*Virtual)(nil)
	_ Exporter = (*Virtual)(nil)
)

// DefaultVirtualID names a virtual provider given no id.
const DefaultVirtualID = "virtual"

// NewVirtual returns an empty virtual provider named id (DefaultVirtualID
// when id is "", as a local provider is "local").
func NewVirtual(id string) *Virtual {
	if id == "" {
		id = DefaultVirtualID
	}
	return newVirtual(id)
}

func newVirtual(id string) *Virtual {
	return &Virtual{id: id, files: map[string][]byte{}, dirs: map[string]bool{}, shell: map[string]Output{}}
}

// NewVirtualFromState restores a virtual provider from exported state.
func NewVirtualFromState(s State) (*Virtual, error) {
	if s.Kind != "" && s.Kind != "virtual" {
		return nil, fmt.Errorf("env: state of a %q provider is not a virtual provider's", s.Kind)
	}
	v := newVirtual(s.ProviderID) // the id as exported, even ""
	for p, text := range s.Files {
		v.files[p] = []byte(text)
	}
	for p, b := range s.Binary {
		v.files[p] = slices.Clone(b)
	}
	for _, d := range s.Dirs {
		v.dirs[d] = true
	}
	maps.Copy(v.shell, s.Shell)
	v.readOnly = s.Metadata["read_only"] == true
	return v, nil
}

// WithFile adds a file (for setting a provider up); it returns v.
func (v *Virtual) WithFile(p, content string) *Virtual {
	c, err := Clean(p)
	if err != nil {
		panic(err) // programmer misuse: a fixture path must be valid
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.files[c] = []byte(content)
	return v
}

// WithShellOutput cans the output of a command (matched by its Display);
// it returns v.
func (v *Virtual) WithShellOutput(command string, out Output) *Virtual {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.shell[command] = out
	return v
}

// ReadOnly makes every later write fail with ErrAccessDenied; it returns v.
func (v *Virtual) ReadOnly() *Virtual {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.readOnly = true
	return v
}

// ID returns the provider's id.
func (v *Virtual) ID() string { return v.id }

// isDir reports whether p is a directory: the root, an explicit one, or a
// parent of a file or directory. The caller holds the lock.
func (v *Virtual) isDir(p string) bool {
	if p == "." || v.dirs[p] {
		return true
	}
	prefix := p + "/"
	for f := range v.files {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	for d := range v.dirs {
		if strings.HasPrefix(d, prefix) {
			return true
		}
	}
	return false
}

func (v *Virtual) clean(op, p string) (string, error) {
	c, err := Clean(p)
	if err != nil {
		var e *Error
		if ok := asError(err, &e); ok {
			e.Op = op
		}
		return "", err
	}
	return c, nil
}

func (v *Virtual) writable(op, p string) error {
	if v.readOnly {
		return &Error{Op: op, Path: p, Err: wrapf(ErrAccessDenied, "the environment is read-only")}
	}
	return nil
}

// ReadFile returns up to length bytes of the file p from offset.
func (v *Virtual) ReadFile(_ context.Context, p string, offset, length int64) ([]byte, error) {
	c, err := v.clean("read", p)
	if err != nil {
		return nil, err
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	b, ok := v.files[c]
	if !ok {
		if v.isDir(c) {
			return nil, &Error{Op: "read", Path: p, Err: wrapf(ErrInvalidRequest, "is a directory")}
		}
		return nil, &Error{Op: "read", Path: p, Err: ErrNotFound}
	}
	if offset < 0 || offset > int64(len(b)) {
		offset = int64(len(b))
	}
	end := int64(len(b))
	if length >= 0 && offset+length < end {
		end = offset + length
	}
	return slices.Clone(b[offset:end]), nil
}

// WriteFile writes the file p.
func (v *Virtual) WriteFile(_ context.Context, p string, data []byte, opts WriteOptions) error {
	c, err := v.clean("write", p)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.writable("write", p); err != nil {
		return err
	}
	if c == "." || v.isDir(c) {
		return &Error{Op: "write", Path: p, Err: wrapf(ErrInvalidRequest, "is a directory")}
	}
	if parent := path.Dir(c); parent != "." && !v.isDir(parent) {
		if !opts.Parents {
			return &Error{Op: "write", Path: p, Err: wrapf(ErrNotFound, "the parent directory %q does not exist", parent)}
		}
		v.dirs[parent] = true
	}
	if opts.Append {
		v.files[c] = append(slices.Clone(v.files[c]), data...)
	} else {
		v.files[c] = slices.Clone(data)
	}
	return nil
}

// Stat describes p.
func (v *Virtual) Stat(_ context.Context, p string) (FileInfo, error) {
	c, err := v.clean("stat", p)
	if err != nil {
		return FileInfo{}, err
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if b, ok := v.files[c]; ok {
		return FileInfo{Path: c, Size: int64(len(b))}, nil
	}
	if v.isDir(c) {
		return FileInfo{Path: c, IsDir: true}, nil
	}
	return FileInfo{}, &Error{Op: "stat", Path: p, Err: ErrNotFound}
}

// children returns the direct children of the directory c, sorted. The
// caller holds the lock.
func (v *Virtual) children(c string) []FileInfo {
	prefix := c + "/"
	if c == "." {
		prefix = ""
	}
	seen := map[string]FileInfo{}
	add := func(full string, isFile bool) {
		rest, ok := strings.CutPrefix(full, prefix)
		if !ok || rest == "" {
			return
		}
		name, _, nested := strings.Cut(rest, "/")
		child := prefix + name
		if nested || !isFile {
			seen[child] = FileInfo{Path: child, IsDir: true}
			return
		}
		seen[child] = FileInfo{Path: child, Size: int64(len(v.files[full]))}
	}
	for f := range v.files {
		add(f, true)
	}
	for d := range v.dirs {
		add(d, false)
	}
	out := slices.Collect(maps.Values(seen))
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// ReadDir lists the directory p.
func (v *Virtual) ReadDir(_ context.Context, p string) ([]FileInfo, error) {
	c, err := v.clean("list", p)
	if err != nil {
		return nil, err
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if _, isFile := v.files[c]; isFile {
		return nil, &Error{Op: "list", Path: p, Err: wrapf(ErrInvalidRequest, "is a file")}
	}
	if !v.isDir(c) {
		return nil, &Error{Op: "list", Path: p, Err: ErrNotFound}
	}
	return v.children(c), nil
}

// Walk visits every entry under root, depth first in name order.
func (v *Virtual) Walk(ctx context.Context, root string, fn func(FileInfo) error) error {
	c, err := v.clean("walk", root)
	if err != nil {
		return err
	}
	v.mu.RLock()
	if !v.isDir(c) {
		v.mu.RUnlock()
		return &Error{Op: "walk", Path: root, Err: ErrNotFound}
	}
	v.mu.RUnlock()
	return v.walk(ctx, c, fn)
}

func (v *Virtual) walk(ctx context.Context, dir string, fn func(FileInfo) error) error {
	v.mu.RLock()
	entries := v.children(dir)
	v.mu.RUnlock()
	for _, e := range entries {
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
		if e.IsDir {
			if err := v.walk(ctx, e.Path, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// Mkdir creates the directory p.
func (v *Virtual) Mkdir(_ context.Context, p string, parents bool) error {
	c, err := v.clean("mkdir", p)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.writable("mkdir", p); err != nil {
		return err
	}
	if _, isFile := v.files[c]; isFile || v.isDir(c) {
		return &Error{Op: "mkdir", Path: p, Err: wrapf(ErrInvalidRequest, "already exists")}
	}
	if parent := path.Dir(c); parent != "." && !v.isDir(parent) && !parents {
		return &Error{Op: "mkdir", Path: p, Err: wrapf(ErrNotFound, "the parent directory %q does not exist", parent)}
	}
	v.dirs[c] = true
	return nil
}

// Remove deletes p.
func (v *Virtual) Remove(_ context.Context, p string, recursive bool) error {
	c, err := v.clean("delete", p)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.writable("delete", p); err != nil {
		return err
	}
	if c == "." {
		return &Error{Op: "delete", Path: p, Err: wrapf(ErrInvalidRequest, "the root cannot be deleted")}
	}
	if _, isFile := v.files[c]; isFile {
		delete(v.files, c)
		return nil
	}
	if !v.isDir(c) {
		return &Error{Op: "delete", Path: p, Err: ErrNotFound}
	}
	if len(v.children(c)) > 0 && !recursive {
		return &Error{Op: "delete", Path: p, Err: wrapf(ErrInvalidRequest, "the directory is not empty")}
	}
	prefix := c + "/"
	for f := range v.files {
		if strings.HasPrefix(f, prefix) {
			delete(v.files, f)
		}
	}
	for d := range v.dirs {
		if d == c || strings.HasPrefix(d, prefix) {
			delete(v.dirs, d)
		}
	}
	return nil
}

// Rename moves src to dst.
func (v *Virtual) Rename(ctx context.Context, src, dst string, overwrite bool) error {
	return v.transfer(ctx, "move", src, dst, overwrite, true)
}

// Copy copies src to dst.
func (v *Virtual) Copy(ctx context.Context, src, dst string, overwrite bool) error {
	return v.transfer(ctx, "copy", src, dst, overwrite, false)
}

func (v *Virtual) transfer(_ context.Context, op, src, dst string, overwrite, move bool) error {
	s, err := v.clean(op, src)
	if err != nil {
		return err
	}
	d, err := v.clean(op, dst)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.writable(op, dst); err != nil {
		return err
	}
	_, srcFile := v.files[s]
	if !srcFile && !v.isDir(s) || s == "." {
		return &Error{Op: op, Path: src, Err: ErrNotFound}
	}
	if d == s || strings.HasPrefix(d, s+"/") {
		return &Error{Op: op, Path: dst, Err: wrapf(ErrInvalidRequest, "the destination is inside the source")}
	}
	if _, dstFile := v.files[d]; dstFile || v.isDir(d) {
		if !overwrite {
			return &Error{Op: op, Path: dst, Err: wrapf(ErrInvalidRequest, "already exists (overwrite it explicitly)")}
		}
		delete(v.files, d)
		for f := range v.files {
			if strings.HasPrefix(f, d+"/") {
				delete(v.files, f)
			}
		}
	}
	if parent := path.Dir(d); parent != "." && !v.isDir(parent) {
		return &Error{Op: op, Path: dst, Err: wrapf(ErrNotFound, "the parent directory %q does not exist", parent)}
	}
	if srcFile {
		v.files[d] = slices.Clone(v.files[s])
		if move {
			delete(v.files, s)
		}
		return nil
	}
	for f, b := range maps.Clone(v.files) {
		if rest, ok := strings.CutPrefix(f, s+"/"); ok {
			v.files[d+"/"+rest] = slices.Clone(b)
			if move {
				delete(v.files, f)
			}
		}
	}
	for dir := range maps.Clone(v.dirs) {
		if dir == s || strings.HasPrefix(dir, s+"/") {
			v.dirs[d+strings.TrimPrefix(dir, s)] = true
			if move {
				delete(v.dirs, dir)
			}
		}
	}
	v.dirs[d] = true
	return nil
}

// WriteScratch stores data under .starweaver/scratch; scratch writes work
// in read-only mode too (they hold the tools' own spilled outputs).
func (v *Virtual) WriteScratch(_ context.Context, name string, data []byte) (string, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00\r\n") {
		return "", &Error{Op: "scratch", Path: name, Err: wrapf(ErrInvalidRequest, "a scratch name is one path segment")}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	p := ".starweaver/scratch/" + name
	v.files[p] = slices.Clone(data)
	return p, nil
}

// Run returns the canned output of cmd (by its Display); a command
// without one is ErrNotFound.
func (v *Virtual) Run(_ context.Context, cmd Command) (Output, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out, ok := v.shell[cmd.Display()]
	if !ok {
		return Output{}, &Error{Op: "exec", Path: cmd.Display(), Err: wrapf(ErrNotFound, "no output is canned for this command in the virtual environment")}
	}
	out.Metadata = maps.Clone(out.Metadata)
	return out, nil
}

// ExportState returns the provider's files, directories and canned
// outputs; binary files go to Binary, and a read-only provider says so in
// Metadata["read_only"] (NewVirtualFromState restores it read-only).
func (v *Virtual) ExportState() (State, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	s := State{ProviderID: v.id, Kind: "virtual", Files: map[string]string{}, Shell: maps.Clone(v.shell)}
	for p, b := range v.files {
		if isText(b) {
			s.Files[p] = string(b)
		} else {
			if s.Binary == nil {
				s.Binary = map[string][]byte{}
			}
			s.Binary[p] = slices.Clone(b)
		}
	}
	s.Dirs = slices.Sorted(maps.Keys(v.dirs))
	if v.readOnly {
		s.Metadata = map[string]any{"read_only": true}
	}
	return s, nil
}

// isText reports whether b is valid UTF-8 without NUL bytes.
func isText(b []byte) bool {
	return !slices.Contains(b, 0) && strings.ToValidUTF8(string(b), "\uFFFD") == string(b)
}
