package env

import (
	"os"
	"syscall"
)

// openDirReader opens the directory c of r once; each read is then raw
// system calls relative to it: open (never following a symbolic link,
// never blocking on a FIFO), fstat, read, close. os.Root would add a
// second fstat and poller bookkeeping per file, which dominate a search
// over many small files.
func openDirReader(r *os.Root, c string) (dirReader, error) {
	f, err := r.OpenFile(c, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		f.Close()
		return nil, syscall.ENOTDIR
	}
	sc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return rawDirReader{f: f, sc: sc}, nil
}

type rawDirReader struct {
	f  *os.File
	sc syscall.RawConn
}

func (d rawDirReader) read(name string) (data []byte, err error) {
	if cerr := d.sc.Control(func(fd uintptr) { data, err = readAt(int(fd), name) }); cerr != nil {
		return nil, cerr
	}
	return data, err
}

func (d rawDirReader) close() { d.f.Close() }

func readAt(dirfd int, name string) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, errNotRegular
	}
	if st.Nlink > 1 {
		return nil, errHardLink // ReadFile, the fallback, applies the provider's rule
	}
	buf := make([]byte, st.Size)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return buf[:n], nil
}
