//go:build !linux

package env

import "os"

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
