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
//
// Unless links is true, a regular file with more than one hard link is
// refused (errHardLink): another of its names may be outside the root, and
// the root's confinement, which is about names, cannot tell. The check is
// made on the open file, before anything is written: O_TRUNC is applied
// only once it passed.
func openRegular(r *os.Root, name string, flag int, perm fs.FileMode, links bool) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(name, flag&^os.O_TRUNC|syscall.O_NONBLOCK, perm)
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
	if fi.Mode().IsRegular() && !links && linkCount(fi) > 1 {
		f.Close()
		return nil, nil, errHardLink
	}
	if flag&os.O_TRUNC != 0 && fi.Mode().IsRegular() {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return f, fi, nil
}

// errHardLink is what openRegular refuses for a file with several hard
// links; mapErr reports it as access denied.
var errHardLink = wrapf(ErrAccessDenied, "the file has more than one hard link (another of its names may be outside the root): "+
	"not opened; a local environment reaches such files only when it allows hard links (LocalOptions.AllowHardLinks, Python: allow_hard_links=True)")

// errNotRegular is what openRegular refuses; mapErr reports it as an
// invalid request.
var errNotRegular = wrapf(ErrInvalidRequest, "not a regular file (a pipe, socket or device): not opened")
