package env

import (
	"context"
	"path"
)

// BatchReader is implemented by providers that read several whole files
// of one directory more cheaply together than one by one. Searches (grep)
// test for it at run time and fall back to ReadFile.
type BatchReader interface {
	// ReadFiles reads the files names (single path elements) of the
	// directory dir, each whole, and calls fn with each one's path (dir
	// joined with its name), data and error, in the order given. fn
	// returning an error stops the reads and ReadFiles returns it.
	ReadFiles(ctx context.Context, dir string, names []string, fn func(path string, data []byte, err error) error) error
}

// ReadFiles reads the files of one directory through a handle on that
// directory, opened once under the root: each file then costs one
// single-element open instead of a resolution of its whole path from the
// root, element by element. Confinement is unchanged: the directory is
// resolved under the root like any path, and a file the directory handle
// cannot open by itself (a symbolic link, which a handle on the directory
// refuses to follow out of it) is read through ReadFile, which resolves it
// under the root.
func (l *Local) ReadFiles(ctx context.Context, dir string, names []string, fn func(string, []byte, error) error) error {
	c, err := l.clean("read", dir)
	if err != nil {
		return err
	}
	join := func(name string) string {
		if c == "." {
			return name
		}
		return c + "/" + name
	}
	one := func(name string) error {
		p := join(name)
		b, err := l.ReadFile(ctx, p, 0, -1)
		return fn(p, b, err)
	}
	if _, _, scratch := l.scratchRoot(c); scratch {
		for _, name := range names {
			if err := one(name); err != nil {
				return err
			}
		}
		return nil
	}
	d, err := openDirReader(l.root, c)
	if err != nil {
		// The directory itself cannot be opened here: each read reports
		// why, as ReadFile does.
		for _, name := range names {
			if err := one(name); err != nil {
				return err
			}
		}
		return nil
	}
	defer d.close()
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == "" || name == "." || name == ".." || path.Base(name) != name {
			if err := fn(join(name), nil, &Error{Op: "read", Path: join(name), Err: wrapf(ErrInvalidRequest, "not a single path element")}); err != nil {
				return err
			}
			continue
		}
		b, err := d.read(name)
		if err != nil {
			if err := one(name); err != nil {
				return err
			}
			continue
		}
		if err := fn(join(name), b, nil); err != nil {
			return err
		}
	}
	return nil
}

// dirReader reads the files of one open directory by name.
type dirReader interface {
	read(name string) ([]byte, error)
	close()
}
