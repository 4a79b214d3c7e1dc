package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/starweaver-go/starweaver/core/store"
	msqlite "modernc.org/sqlite"
)

// Another SQLite library in the same process (Python's sqlite3 in the
// host of this library, mattn/go-sqlite3 in a Go program) opening the
// database file is a known trap: SQLite locks files with POSIX record
// locks, which belong to the process, so the other library neither sees
// this one's locks nor keeps them (any close(2) of the file in the process
// drops them all). Left alone, the other library's connection truncates the
// live WAL index when it opens and, when it closes, finds the file unlocked,
// checkpoints, and deletes the WAL and its index under this library's
// connections: their later commits go to a deleted file, succeed, and are
// lost. Three measures:
//
//   - Open switches the driver to Linux OFD locks (see [msqlite.OFDLocking])
//     for database files: they belong to the open file, so the other
//     library's close no longer drops them, and its own locks conflict with
//     them, so it never finds the file unused and never deletes the WAL.
//   - The DB holds an OFD read lock of its own on the WAL index's "in use"
//     byte (see shmGuard) for its whole life, so that the other library
//     sees the index in use and does not reset it.
//   - After every session save, the DB checks that the WAL it writes is
//     still the file at its path (checkFiles): if it was removed or
//     replaced (OFD locks unavailable, or something deleted it), the save
//     fails instead of reporting success for a commit nobody will read.
//
// What is left is documented in docs/durability.md: the locks coordinating
// the WAL index itself stay POSIX locks in the driver.

// ofdOnce switches the driver to OFD locks before the first database file
// of the process is opened.
var ofdOnce sync.Once

// useOFDLocks enables OFD locks for database files, once per process. Where
// the kernel has none (or a database was opened before, with POSIX locks),
// the driver keeps POSIX locks, and checkFiles still catches lost saves.
func useOFDLocks() {
	ofdOnce.Do(func() {
		_, _ = msqlite.OFDLocking(true) // ErrOFDLockingUnavailable, ErrOFDLockingTooLate: keep POSIX locks
	})
}

// walFile identifies the WAL this DB writes: recorded after Open, checked
// after each session save.
type walFile struct {
	path  string
	info  os.FileInfo
	guard *os.File // the WAL index's file with the guard lock, or nil
}

// watchFiles records the WAL of the database at path and takes the guard
// lock on its index. The database must be open in WAL mode.
func watchFiles(path string) (*walFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	w := &walFile{path: abs + "-wal"}
	if w.info, err = os.Stat(w.path); err != nil {
		return nil, err
	}
	w.guard = shmGuard(abs + "-shm")
	return w, nil
}

// ErrFilesReplaced: the WAL the database writes was removed or replaced
// under the DB; see checkFiles. It matches store.ErrUnavailable.
var ErrFilesReplaced = fmt.Errorf("%w: the database's write-ahead log was removed or replaced while the store had it open", store.ErrUnavailable)

// check fails when the WAL at the path is no longer the one the DB writes.
func (w *walFile) check() error {
	if w == nil {
		return nil
	}
	now, err := os.Stat(w.path)
	if err == nil && os.SameFile(now, w.info) {
		return nil
	}
	cause := "it was replaced"
	if errors.Is(err, os.ErrNotExist) {
		cause = "it was deleted"
	} else if err != nil {
		cause = err.Error()
	}
	return fmt.Errorf("%w (%s: %s; most likely another SQLite library in this process, such as Python's sqlite3, "+
		"opened the file and closed it): what was written since then went to the removed file, so it may never "+
		"reach the database file; close the store and open it again", ErrFilesReplaced, w.path, cause)
}

// explain returns, for a statement that failed, the check's error when the
// WAL was removed or replaced (SQLite then reports a bare I/O error), and
// err otherwise.
func (d *DB) explain(err error) error {
	if lost := d.checkFiles(); lost != nil {
		return lost
	}
	return errors.Join(store.ErrUnavailable, err)
}

func (w *walFile) close() {
	if w != nil && w.guard != nil {
		_ = w.guard.Close() // releases the guard lock
	}
}
