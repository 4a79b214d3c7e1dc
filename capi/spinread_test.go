package main

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// spinPipe is a non-blocking pipe as a run has: a spinReader over its
// read end, and the raw write end.
func spinPipe(t *testing.T, spin time.Duration) (*spinReader, *os.File, int) {
	t.Helper()
	fds, err := nonblockingPipe()
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[0]), "completions")
	t.Cleanup(func() { f.Close(); syscall.Close(fds[1]) })
	return newSpinReader(f, spin), f, fds[1]
}

func TestSpinReaderReadsWhilePollingAndAfterParking(t *testing.T) {
	for _, spin := range []time.Duration{time.Hour, time.Nanosecond, 0} {
		// time.Hour: the write lands while the reader polls; 1 ns: the
		// reader has given up polling and waits in the poller; 0: plain.
		r, _, w := spinPipe(t, spin)
		got := make(chan string, 1)
		go func() {
			buf := make([]byte, 64)
			n, err := r.Read(buf)
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- string(buf[:n])
		}()
		if _, err := syscall.Write(w, []byte("[1,{}]\n")); err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-got:
			if s != "[1,{}]\n" {
				t.Fatalf("spin %v: read %q", spin, s)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("spin %v: read never returned", spin)
		}
	}
}

func TestSpinReaderEndsOnEOFAndOnClose(t *testing.T) {
	r, _, w := spinPipe(t, time.Hour)
	syscall.Close(w)
	if n, err := r.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("after the writer closed: %d, %v", n, err)
	}
	// Closing the file ends a read in progress, polling or parked.
	for _, spin := range []time.Duration{time.Hour, time.Nanosecond} {
		r, f, _ := spinPipe(t, spin)
		done := make(chan error, 1)
		go func() {
			_, err := r.Read(make([]byte, 8))
			done <- err
		}()
		f.Close()
		select {
		case err := <-done:
			if !errors.Is(err, os.ErrClosed) {
				t.Fatalf("spin %v: read after close: %v", spin, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("spin %v: a closed pipe's read never returned", spin)
		}
	}
}
