package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
)

// hostRun is one run driven by the host. Work for the host (tool calls,
// model requests, cancellations, events, the final result) is written to a
// pipe as JSON lines that the host's event loop reads as they come: the
// host never gets a callback from a Go thread, and reading needs no call
// into Go, so the loop never waits for Go's scheduler while a batch is
// being dispatched. Items are queued in memory and written by one writer
// goroutine, so posting never blocks on a slow reader.
type hostRun struct {
	cancel context.CancelFunc
	// finished is closed when the run's goroutine has returned (its session
	// is free again); nil for runs without one (tests).
	finished chan struct{}
	// fail cancels the run with a cause that its done item reports; an
	// agent.Interrupt cause interrupts it instead.
	fail func(error)
	// steering carries sw_run_steer's texts into the run.
	steering *agent.Steering
	// traced sends every call with its context (the run spec's "trace").
	traced bool
	rfd    int      // read end of the items pipe, for the host
	w      *os.File // write end of the items pipe, driven by Go's poller
	// The host writes completions to a second pipe as JSON lines
	// [token, outcome], so that completing a call does not enter Go either.
	wfdIn int      // write end of the completions pipe, for the host
	in    *os.File // read end of the completions pipe

	mu    sync.Mutex
	buf   []byte // items not yet written, each ending in '\n'
	spare []byte
	// writing is set while the writer goroutine owns the pipe: from the
	// post that woke it until it finds buf empty. Items go straight to the
	// pipe otherwise (see post).
	writing bool
	wake    chan struct{}
	// wrc writes to w without waiting (see writeNow); line, wrote and werr
	// are the state of one such write, so that it allocates nothing.
	wrc     syscall.RawConn
	writeFn func(fd uintptr) bool
	line    []byte
	wrote   int
	werr    error
	closed  bool
	next    int64
	waiters map[int64]waiter
	// watches are the contexts of the started items awaited (watch.go).
	watches watches
	// delivered is when the last completion came (see answerDue).
	delivered time.Time
}

// waiter is a call or model request awaiting the host's completion: either
// a goroutine blocked on ch, or a started item whose complete method runs
// on the goroutine that reads completions.
type waiter struct {
	ch    chan []byte
	item  startedItem
	watch *watch // of the started item's context; nil if it cannot end
}

// startedItem is the work of an item started without waiting (see start):
// it encodes the item for its token, then takes the host's answer.
type startedItem interface {
	appendItem(token int64) ([]byte, error)
	// complete runs exactly once, with the host's answer or with the
	// error that ended the item; it must not block.
	complete(data []byte, err error)
}

func newHostRun() (*hostRun, error) {
	out, err := nonblockingPipe()
	if err != nil {
		return nil, err
	}
	in, err := nonblockingPipe()
	if err != nil {
		syscall.Close(out[0])
		syscall.Close(out[1])
		return nil, err
	}
	r := &hostRun{
		rfd:     out[0],
		w:       os.NewFile(uintptr(out[1]), "starweaver-run-items"),
		wfdIn:   in[1],
		in:      os.NewFile(uintptr(in[0]), "starweaver-run-completions"),
		wake:    make(chan struct{}, 1),
		waiters: map[int64]waiter{},
	}
	if r.wrc, err = r.w.SyscallConn(); err != nil {
		r.w.Close()
		r.in.Close()
		syscall.Close(out[0])
		syscall.Close(in[1])
		return nil, fmt.Errorf("configuring a run pipe: %w", err)
	}
	r.writeFn = r.writeOnce
	go r.writeLoop()
	go r.readLoop()
	return r, nil
}

// readLoop delivers completions the host writes as [token, outcome] lines.
// A line is never dropped: one that cannot be read fails its call when its
// token can be found, and the whole run otherwise.
func (r *hostRun) readLoop() {
	br := completionReaders.Get().(*bufio.Reader)
	br.Reset(newSpinReader(r.in, completionSpin, r.answerDue))
	defer func() {
		br.Reset(nil)
		completionReaders.Put(br)
	}()
	var lines lineArena
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			// Longer than the buffer: the rest is read whole.
			head := bytes.Clone(line)
			line, err = br.ReadBytes('\n')
			line = append(head, line...)
		default:
			line = lines.copy(line)
		}
		if len(line) > 1 && line[len(line)-1] == '\n' {
			r.deliver(line[:len(line)-1])
		}
		if err != nil {
			return // closed
		}
	}
}

// completionReaders keeps the completion readers of ended runs: a run
// allocated one of 64 kB, a tenth of all a 200-call batch allocated.
var completionReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<16) }}

// lineArena copies completion lines into shared chunks: a line's outcome
// outlives its read (a result keeps its content), and one allocation per
// chunk replaced one per line.
type lineArena struct{ buf []byte }

func (a *lineArena) copy(b []byte) []byte {
	if cap(a.buf)-len(a.buf) < len(b) {
		if len(b) > 1<<10 {
			return bytes.Clone(b)
		}
		a.buf = make([]byte, 0, 4<<10)
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// answerDue reports whether the completions reader should poll: while the
// run waits on exactly one answer of the host, or for a moment
// (answerGrace) after a completion, when a sequential run posts its next
// item. That is the sequential hot path. With more answers outstanding
// they come in bursts once per iteration of the host's loop, and with none
// (a run starting, or building its result) nothing can come: polling then
// would only take a core from the host and the runtime.
func (r *hostRun) answerDue() bool {
	r.mu.Lock()
	n, last := len(r.waiters), r.delivered
	r.mu.Unlock()
	return n == 1 || (n == 0 && !last.IsZero() && time.Since(last) < answerGrace)
}

// answerGrace is how long after a completion the reader polls with no
// answer outstanding: a sequential run turns a completion into its next
// item in a few microseconds, a model turn (a TestModel request between
// two calls) in tens; measured side by side, 50 µs took a turn from ~50 to
// ~30 µs against 20 µs.
const answerGrace = 50 * time.Microsecond

// deliver completes the calls of one completion line.
func (r *hostRun) deliver(line []byte) {
	// The host writes each completion compactly as [token,outcome]: read
	// the token by hand and check the outcome once, instead of decoding
	// the pair with encoding/json (a third of the runtime's own time in a
	// batch of trivial calls). Anything else takes the general path below.
	if token, outcome, ok := compactCompletion(line); ok {
		r.complete(token, outcome)
		return
	}
	batch, err := decodeCompletions(append(append([]byte{'['}, line...), ']'))
	if err == nil {
		for _, c := range batch {
			r.complete(c.Token, c.Outcome)
		}
		return
	}
	if token, ok := leadingToken(line); ok {
		msg, _ := json.Marshal("the host sent a malformed outcome: " + err.Error())
		r.complete(token, []byte(`{"ok":false,"kind":"user_error","message":`+string(msg)+`}`))
		return
	}
	r.fail(&bridgeError{fmt.Sprintf("the host sent an unreadable completion line: %v", err)})
}

// compactCompletion splits a line written as [token,outcome], the token
// right after the bracket and the outcome valid JSON; ok is false for any
// other line.
func compactCompletion(line []byte) (token int64, outcome []byte, ok bool) {
	token, ok = leadingToken(line)
	if !ok || line[len(line)-1] != ']' {
		return 0, nil, false
	}
	outcome = line[bytes.IndexByte(line, ',')+1 : len(line)-1]
	if len(outcome) == 0 || !json.Valid(outcome) {
		return 0, nil, false
	}
	return token, outcome, true
}

// leadingToken reads the token of a line that starts as "[token,".
func leadingToken(line []byte) (int64, bool) {
	if len(line) < 3 || line[0] != '[' {
		return 0, false
	}
	var n int64
	i := 1
	for ; i < len(line) && i < 20 && line[i] >= '0' && line[i] <= '9'; i++ {
		n = n*10 + int64(line[i]-'0')
	}
	return n, i > 1 && i < len(line) && line[i] == ','
}

// bridgeError fails a run whose host and runtime could not understand each
// other; the run's done item reports it as type "bridge".
type bridgeError struct{ msg string }

func (e *bridgeError) Error() string { return e.msg }

// post sends one JSON item (which must hold no raw newline); item is
// the host's from then on (a newline may be appended in its spare
// capacity).
//
// With nothing queued, the item is written to the pipe at once, from this
// goroutine: a batch's calls each reach the host as soon as they are
// started, and none costs a wake-up of the writer goroutine and a switch
// to it and back (measured side by side, that switch cost more than the
// rest of a started call, and the item took as long to get out). Only
// when the pipe is full (the host is behind) do items queue in memory for
// the writer, which waits in the poller for the host to read, so posting
// never blocks on a slow reader.
func (r *hostRun) post(item []byte) {
	if r.queue(append(item, '\n')) {
		// The woken writer waits in this processor's next slot until this
		// goroutine blocks: a run dispatching a batch held its first items
		// back for milliseconds. Yielding lets the writer run now (and
		// another processor take this goroutine).
		runtime.Gosched()
	}
}

// queue writes line or queues it; woke reports that it woke the writer.
func (r *hostRun) queue(line []byte) (woke bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	return r.queueLocked(line)
}

// queueLocked is queue of an open run, with r.mu held.
func (r *hostRun) queueLocked(line []byte) (woke bool) {
	if !r.writing {
		// Nothing is queued (the writer empties buf before it stops).
		n := r.writeNow(line)
		if n == len(line) {
			return false
		}
		line = line[n:]
	}
	r.buf = append(r.buf, line...)
	if r.writing {
		return false
	}
	r.writing = true
	r.wake <- struct{}{} // never blocks: only the post that sets writing sends
	return true
}

// writeNow writes what of line the pipe takes without waiting; r.mu is
// held.
func (r *hostRun) writeNow(line []byte) int {
	r.line, r.wrote, r.werr = line, 0, nil
	if err := r.wrc.Write(r.writeFn); err != nil {
		return 0 // closed: the writer's own write reports it
	}
	r.line = nil
	return r.wrote
}

func (r *hostRun) writeOnce(fd uintptr) bool {
	for r.wrote < len(r.line) {
		n, err := syscall.Write(int(fd), r.line[r.wrote:])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break // full (EAGAIN) or failing: the writer takes over
		}
		r.wrote += n
	}
	return true // never wait in the poller here
}

// writeLoop writes queued items to the pipe until the run is closed. Each
// wake-up hands it the pipe (see writing) until it finds nothing queued.
func (r *hostRun) writeLoop() {
	for range r.wake {
		for {
			r.mu.Lock()
			b := r.buf
			if len(b) == 0 {
				r.writing = false
				r.mu.Unlock()
				break
			}
			r.buf, r.spare = r.spare[:0], nil
			r.mu.Unlock()
			if _, err := r.w.Write(b); err != nil {
				return // closed: the host has gone
			}
			r.mu.Lock()
			if r.spare == nil {
				r.spare = b[:0]
			}
			r.mu.Unlock()
		}
	}
}

// await posts the item built for a fresh token and waits for the host's
// completion or for ctx to end. When ctx ends first, the host is told to
// cancel the token and a later completion is dropped.
func (r *hostRun) await(ctx context.Context, build func(token int64) ([]byte, error)) ([]byte, error) {
	ch := make(chan []byte, 1)
	token, ok := r.register(waiter{ch: ch})
	if !ok {
		return nil, errRunClosed
	}
	item, err := build(token)
	if err != nil {
		r.take(token)
		return nil, err
	}
	r.post(item)
	select {
	case out := <-ch:
		return out, nil
	case <-ctx.Done():
		r.take(token)
		r.post(cancelItem(token))
		return nil, ctx.Err()
	}
}

var errRunClosed = errors.New("run is closed")

// start posts it's item for a fresh token and returns at once; it
// receives the host's completion, or ctx's error (after the host is told
// to cancel) if ctx ends first.
//
// The item is registered and written under one hold of the lock, so the
// host cannot answer a token not yet awaited. The calls of a batch share
// their context, and so does their watch (watch.go): a context.AfterFunc
// per call cost a closure, a registration in the parent context and its
// removal, for every call.
func (r *hostRun) start(ctx context.Context, it startedItem) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		it.complete(nil, errRunClosed)
		return
	}
	r.next++
	token := r.next
	r.mu.Unlock()
	item, err := it.appendItem(token)
	if err != nil {
		it.complete(nil, err)
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		it.complete(nil, errRunClosed)
		return
	}
	w := waiter{item: it, watch: r.watches.add(r, ctx)}
	r.waiters[token] = w
	woke := r.queueLocked(append(item, '\n'))
	r.mu.Unlock()
	if woke {
		runtime.Gosched() // as in post
	}
}

func cancelItem(token int64) []byte {
	return []byte(fmt.Sprintf(`{"kind":"cancel","token":%d}`, token))
}

// register adds a waiter under a fresh token.
func (r *hostRun) register(w waiter) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, false
	}
	r.next++
	r.waiters[r.next] = w
	return r.next, true
}

// take removes the waiter of an awaited item's token (see await).
func (r *hostRun) take(token int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.waiters, token)
}

// complete delivers a completion; it reports false for tokens no longer
// awaited.
func (r *hostRun) complete(token int64, data []byte) bool {
	r.mu.Lock()
	w, ok := r.waiters[token]
	delete(r.waiters, token)
	if len(r.waiters) == 0 {
		// Read only with nothing outstanding (answerDue): the clock is
		// read once per batch, not per call.
		r.delivered = time.Now()
	}
	stop := r.watches.done(w.watch)
	r.mu.Unlock()
	if !ok {
		return false
	}
	if w.ch != nil {
		w.ch <- data
		return true
	}
	if stop != nil {
		stop()
	}
	w.item.complete(data, nil)
	return true
}

// close cancels the run and releases the pipe. Unwritten items are
// dropped. It waits (at most closeWait) for the run to return, so that its
// session takes a new run as soon as close returns; the run returns at
// once, since it never waits on the host after cancellation.
func (r *hostRun) close() {
	r.cancel()
	r.closePipes()
	if r.finished != nil {
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-r.finished:
		case <-t.C:
		}
	}
}

// closeWait bounds how long close waits for a cancelled run to return.
const closeWait = 2 * time.Second

func (r *hostRun) closePipes() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	r.buf = nil
	close(r.wake)
	// The ends close on a goroutine of their own: closing a file that
	// Go's poller watches waits until the goroutine using it has run
	// again, and the four closes took 30–50 µs of a run's release (a
	// tenth of a short run) for nobody's benefit. The host stopped using
	// the pipes before it released the run, and their numbers cannot be
	// reused before they are closed.
	go func() {
		r.w.Close() // also ends a write blocked on a full pipe
		r.in.Close()
		syscall.Close(r.rfd)
		syscall.Close(r.wfdIn)
	}()
}

type runKey struct{}

func withRun(ctx context.Context, r *hostRun) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

func runFrom(ctx context.Context) *hostRun {
	r, _ := ctx.Value(runKey{}).(*hostRun)
	return r
}

// encodeItem encodes a work item for the host, with the error wrapped.
func encodeItem(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding host item: %w", err)
	}
	return b, nil
}

// completion is one [token, outcome] pair of a completion batch.
type completion struct {
	Token   int64
	Outcome json.RawMessage
}

// decodeCompletions reads a completion batch: a JSON array of pairs.
func decodeCompletions(data []byte) ([]completion, error) {
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, specError("completion batch: %v", err)
	}
	out := make([]completion, len(raw))
	for i, pair := range raw {
		if err := json.Unmarshal(pair[0], &out[i].Token); err != nil {
			return nil, specError("completion batch item %d: token: %v", i, err)
		}
		if len(pair[1]) == 0 {
			return nil, specError("completion batch item %d: missing outcome", i)
		}
		out[i].Outcome = pair[1]
	}
	return out, nil
}
