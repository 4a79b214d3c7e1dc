package env

import (
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens the file name of r, refusing anything but a regular
// file. It opens without blocking: a FIFO (or a device) in the tree would
// otherwise block the open until some other process opened its other end,
// and the tool call, and the run, would never end. A regular file ignores
// O_NONBLOCK, so reads and writes of one behave as usual.
func openRegular(r *os.Root, name string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(name, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, nil, errNotRegular
	}
	return f, fi, nil
}

// errNotRegular is what openRegular refuses; mapErr reports it as an
// invalid request.
var errNotRegular = wrapf(ErrInvalidRequest, "not a regular file (a pipe, socket or device): not opened")
