//go:build !linux

package env

import (
	"errors"
	"io"
	"os"
)

// openDirReader opens the directory c of r as a root of its own; each read
// opens one element of it.
func openDirReader(r *os.Root, c string) (dirReader, error) {
	if c == "." {
		return rootDirReader{r: r}, nil
	}
	sub, err := r.OpenRoot(c)
	if err != nil {
		return nil, err
	}
	return rootDirReader{r: sub, owned: true}, nil
}

type rootDirReader struct {
	r     *os.Root
	owned bool
}

func (d rootDirReader) read(name string) ([]byte, error) { return readAllGeneric(d.r, name) }

func (d rootDirReader) close() {
	if d.owned {
		d.r.Close()
	}
}

// readAllGeneric reads the regular file name of the directory handle d.
func readAllGeneric(d *os.Root, name string) ([]byte, error) {
	// Hard-linked files are refused here; the caller's fallback, ReadFile,
	// applies the provider's rule and says why.
	f, fi, err := openRegular(d, name, os.O_RDONLY, 0, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, errors.New("is a directory")
	}
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return buf[:n], nil
}
