package bridge

import (
	"errors"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
)

// completionSpin bounds how long a read of the completions pipe polls
// before it parks in Go's poller. In a sequential run the host answers
// the next call within tens of microseconds, and a parked reader costs a
// thread wake-up on each side per round trip, more than the round trip
// itself (on a virtual machine a wake-up is an interprocessor interrupt):
// measured side by side, polling both ends took a sequential call from
// ~100 µs to ~22 µs and its CPU from ~100 µs to ~44 µs
// (docs/performance.md). The bound keeps an idle run from holding a core.
const completionSpin = 50 * time.Microsecond

// spinReader reads a non-blocking pipe by polling it for up to spin,
// yielding between polls so that the goroutines turning a completion into
// the next item run, and then waiting in the poller as os.File does.
type spinReader struct {
	f    *os.File
	rc   syscall.RawConn
	spin time.Duration
	// worth, when set, is asked at each poll whether polling still pays;
	// when it says no, the read waits in the poller at once.
	worth   func() bool
	backoff spinBackoff
	// The state of one poll, so that polling allocates nothing.
	buf    []byte
	n      int
	err    error
	readFn func(fd uintptr) bool
}

func newSpinReader(f *os.File, spin time.Duration, worth func() bool) *spinReader {
	rc, err := f.SyscallConn()
	if err != nil {
		spin = 0 // read as a plain file
	}
	s := &spinReader{f: f, rc: rc, spin: spin, worth: worth}
	s.readFn = s.readOnce
	return s
}

// spinBackoff decides which reads poll. After a poll that found nothing in
// time, the next reads wait in the poller at once, twice as many after
// each further miss in a row, up to maxSpinSkip: polls that miss mean the
// host is slower than the bound, or that the machine has no core to spare,
// and polling would then only delay whoever must answer. A poll that finds
// data resets it.
type spinBackoff struct{ skip, backoff int }

// maxSpinSkip bounds the reads that skip polling after misses in a row.
const maxSpinSkip = 64

// poll reports whether this read polls.
func (b *spinBackoff) poll() bool {
	if b.skip > 0 {
		b.skip--
		return false
	}
	return true
}

func (b *spinBackoff) hit() { b.backoff = 0 }

func (b *spinBackoff) miss() {
	b.backoff = min(max(2*b.backoff, 1), maxSpinSkip)
	b.skip = b.backoff
}

func (s *spinReader) Read(p []byte) (int, error) {
	if s.spin <= 0 || len(p) == 0 || !s.worthIt() || !s.backoff.poll() {
		return s.f.Read(p)
	}
	deadline := time.Now().Add(s.spin)
	for {
		n, got, err := s.poll(p)
		if err != nil || got {
			s.backoff.hit()
			return n, err
		}
		if !s.worthIt() {
			return s.f.Read(p)
		}
		if !time.Now().Before(deadline) {
			s.backoff.miss()
			return s.f.Read(p)
		}
		runtime.Gosched()
	}
}

func (s *spinReader) worthIt() bool { return s.worth == nil || s.worth() }

func (s *spinReader) readOnce(fd uintptr) bool {
	s.n, s.err = syscall.Read(int(fd), s.buf)
	return true // never wait in the poller here
}

// poll tries one non-blocking read; got is false when the pipe is empty.
func (s *spinReader) poll(p []byte) (n int, got bool, err error) {
	s.buf = p
	cerr := s.rc.Read(s.readFn)
	s.buf = nil
	n, rerr := s.n, s.err
	switch {
	case cerr != nil:
		// Closed: os.File's own read reports it as os.ErrClosed.
		n, err = s.f.Read(p)
		return n, true, err
	case errors.Is(rerr, syscall.EAGAIN), errors.Is(rerr, syscall.EINTR):
		return 0, false, nil
	case rerr != nil:
		return 0, true, rerr
	case n == 0:
		return 0, true, io.EOF
	}
	return n, true, nil
}
