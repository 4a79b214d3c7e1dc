package sqlite

import (
	"os"

	"golang.org/x/sys/unix"
)

// shmDMS is the byte of the WAL index (the -shm file) that every
// connection of SQLite's unix VFS holds a read lock on while it uses the
// index; a connection that finds no lock there takes the index for stale
// and resets it (os_unix.c: UNIX_SHM_DMS, after the 8 lock bytes at 120).
const shmDMS = 128

// shmGuard opens the WAL index at path and takes an OFD read lock on its
// DMS byte, held until the file is closed. Unlike the driver's POSIX locks,
// this one is not dropped when another library in the process closes the
// file, and it conflicts with that library's probe, so it never resets
// the index this DB uses. Nil where the lock cannot be had (no OFD locks).
func shmGuard(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0, Start: shmDMS, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		f.Close()
		return nil
	}
	return f
}
