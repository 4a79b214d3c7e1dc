package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Another SQLite library in this process probes the WAL index's DMS byte
// with a POSIX F_GETLK before it uses the index, and resets the index when
// it finds the byte unlocked. The driver's own POSIX locks are invisible to
// that probe (same process); the DB's OFD guard is what it must find.
func TestTheWALIndexLooksInUseToOtherLibraries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	probe := func() int16 {
		f, err := os.OpenFile(path+"-shm", os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		lk := unix.Flock_t{Type: unix.F_WRLCK, Start: shmDMS, Len: 1}
		if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil {
			t.Fatal(err)
		}
		return lk.Type
	}
	if got := probe(); got != unix.F_RDLCK {
		t.Fatalf("a same-process probe of the WAL index's DMS byte finds lock type %d, want a read lock (%d)", got, unix.F_RDLCK)
	}
	// The probe closed a descriptor of the file: the guard survives it.
	if got := probe(); got != unix.F_RDLCK {
		t.Fatalf("after a close of the file, the probe finds lock type %d, want a read lock", got)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// The driver locks database files with OFD locks: another library's
// POSIX probe sees the SHARED lock a WAL connection holds, and it stays
// when a descriptor of the file is closed elsewhere in the process.
func TestTheDatabaseLockSurvivesAClose(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sw.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const sharedFirst, sharedSize = 0x40000000 + 2, 510 // os.h: PENDING_BYTE+2, SHARED_SIZE
	for i := range 2 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		lk := unix.Flock_t{Type: unix.F_WRLCK, Start: sharedFirst, Len: sharedSize}
		err = unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk)
		f.Close() // dropped POSIX locks of the process on the file, not OFD ones
		if err != nil {
			t.Fatal(err)
		}
		if lk.Type != unix.F_RDLCK {
			t.Fatalf("probe %d: the database file's SHARED range has lock type %d, want a read lock (OFD locks on)", i, lk.Type)
		}
	}
}
