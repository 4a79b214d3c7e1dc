package bridge

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
	return newSpinReader(f, spin, nil), f, fds[1]
}

func TestSpinReaderReadsWhilePollingAndAfterParking(t *testing.T) {
	for _, spin := range []time.Duration{time.Hour, time.Nanosecond, 0} {
		// time.Hour: the write lands while the reader polls; 1 ns: the
		// reader has given up polling and waits in the poller; 0: plain.
		r, _, w := spinPipe(t, spin)
		got := readAsync(r)
		if _, err := syscall.Write(w, []byte("[1,{}]\n")); err != nil {
			t.Fatal(err)
		}
		if s := await(t, got); s != "[1,{}]\n" {
			t.Fatalf("spin %v: read %q", spin, s)
		}
	}
}

// readAsync reads r once on a goroutine; the channel gets what it read.
func readAsync(r *spinReader) <-chan string {
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
	return got
}

// await returns what readAsync read, failing the test after 10 s.
func await(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("a read never returned")
		return ""
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

// A reader asks worth before polling and, told polling does not pay,
// waits in the poller at once; a run says polling pays only while an
// answer is due.
func TestSpinReaderAsksWhetherPollingPays(t *testing.T) {
	r, _, w := spinPipe(t, time.Hour)
	asked := make(chan struct{}, 4)
	r.worth = func() bool { asked <- struct{}{}; return false }
	got := readAsync(r)
	select {
	case <-asked: // the reader asked, then parked: it never polls for the hour
	case <-time.After(10 * time.Second):
		t.Fatal("the reader never asked whether polling pays")
	}
	if _, err := syscall.Write(w, []byte("[1,{}]\n")); err != nil {
		t.Fatal(err)
	}
	if s := await(t, got); s != "[1,{}]\n" {
		t.Fatalf("read %q", s)
	}

	// A run: nothing due before its first item, one answer due, then many
	// (a parallel batch), then none a moment after a completion, and none
	// once the moment passed.
	run := &hostRun{waiters: map[int64]waiter{}}
	if run.answerDue() {
		t.Fatal("an answer is due before the run posted anything")
	}
	for n, want := range []bool{true, false, false} {
		run.waiters[int64(n)] = waiter{item: ignoredItem{}}
		if got := run.answerDue(); got != want {
			t.Fatalf("%d waiters: answerDue = %v", n+1, got)
		}
	}
	for n := range 3 {
		run.complete(int64(n), []byte(`{}`))
	}
	if !run.answerDue() {
		t.Fatal("no answer is due right after a completion")
	}
	run.mu.Lock()
	run.delivered = time.Now().Add(-answerGrace)
	run.mu.Unlock()
	if run.answerDue() {
		t.Fatal("an answer is due long after the last completion, with none outstanding")
	}
}

// Polls that find nothing in time back off: the reads after a miss wait in
// the poller at once, twice as many after each further miss (at most
// maxSpinSkip), and a poll that finds data polls again on the next read.
func TestSpinBackoff(t *testing.T) {
	var b spinBackoff
	polls := func(reads int) (n int) {
		for i := 0; i < reads; i++ {
			if b.poll() {
				n++
			}
		}
		return n
	}
	if polls(3) != 3 {
		t.Fatal("a fresh reader does not poll every read")
	}
	for _, skip := range []int{1, 2, 4, 8, 16, 32, 64, 64} {
		b.miss()
		if got := polls(skip); got != 0 {
			t.Fatalf("after a miss with backoff %d, %d of the next %d reads polled", skip, got, skip)
		}
		if !b.poll() {
			t.Fatalf("the read after %d skipped ones did not poll", skip)
		}
	}
	b.hit()
	b.miss()
	if polls(1) != 0 || polls(1) != 1 {
		t.Fatal("a hit did not reset the backoff")
	}
}

// ignoredItem is a started item whose answer nobody reads.
type ignoredItem struct{}

func (ignoredItem) appendItem(int64) ([]byte, error) { return []byte("[]"), nil }
func (ignoredItem) complete([]byte, error)           {}
