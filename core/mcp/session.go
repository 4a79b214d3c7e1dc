package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"reflect"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/version"
)

// conn is one open connection to the server: for stdio, one process.
type conn struct {
	session *sdk.ClientSession
	// ctx ends when the connection is closed here; requests in flight
	// are bound to it (see bind), so that closing never waits for them.
	ctx          context.Context
	cancel       context.CancelFunc
	tail         *tailBuffer
	cmd          *exec.Cmd // the stdio server's, nil over HTTP
	instructions string
	// done is closed when the session ends, whoever ended it.
	done chan struct{}

	mu sync.Mutex
	// tools is the cached list, nil when it must be listed (again).
	tools []tool.Tool
	// changes counts list_changed notifications, so that a listing that
	// raced with one is not cached.
	changes uint64
}

// dial is a connection being opened; done is closed once c or err is set.
type dial struct {
	done   chan struct{}
	cancel context.CancelFunc
	c      *conn
	err    error
}

// alive reports whether the session has not ended.
func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// changed drops the cached list after a list_changed notification.
func (c *conn) changed() {
	c.mu.Lock()
	c.changes++
	c.tools = nil
	c.mu.Unlock()
}

// close ends the session and, for stdio, stops the server: its input is
// closed, then it is signalled and finally killed if it does not exit.
// Requests in flight are cancelled first (the SDK's close waits for
// them otherwise, which a slow tool would make long).
func (c *conn) close() {
	c.cancel()
	_ = c.session.Close()
	killGroup(c.cmd)
}

// bind returns ctx, also cancelled when c is closed; call stop when the
// request is done.
func (c *conn) bind(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// session returns the open connection, opening one when there is none.
// Concurrent callers share one attempt, which is bounded by the
// initialisation timeout, not by any caller's ctx: a caller whose ctx ends
// stops waiting (with ctx's error) and the attempt goes on for the others.
func (s *Toolset) session(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	if s.conn != nil && s.conn.alive() {
		c := s.conn
		s.mu.Unlock()
		return c, nil
	}
	s.conn = nil
	d := s.dialing
	if d == nil {
		dctx, cancel := context.WithTimeout(context.Background(), s.initTimeout())
		d = &dial{done: make(chan struct{}), cancel: cancel}
		s.dialing = d
		go s.open(dctx, d, s.epoch)
	}
	s.mu.Unlock()
	select {
	case <-d.done:
		return d.c, d.err
	case <-ctx.Done():
		return nil, fmt.Errorf("toolset %q: waiting for the MCP server to start: %w", s.id, ctx.Err())
	}
}

func (s *Toolset) initTimeout() time.Duration {
	if s.opts.InitTimeout > 0 {
		return s.opts.InitTimeout
	}
	return DefaultInitTimeout
}

// open connects (for stdio: starts the server) and completes the MCP
// handshake, then publishes the connection unless Close ran meanwhile.
func (s *Toolset) open(ctx context.Context, d *dial, epoch uint64) {
	defer d.cancel()
	c, err := s.connect(ctx)
	s.mu.Lock()
	if err == nil && s.epoch != epoch {
		err = fmt.Errorf("toolset %q: closed while the MCP server was starting", s.id)
		defer c.close()
		c = nil
	}
	if err == nil {
		s.conn = c
	}
	if s.dialing == d {
		s.dialing = nil
	}
	d.c, d.err = c, err
	s.mu.Unlock()
	close(d.done)
}

// connect opens a new connection bounded by ctx.
func (s *Toolset) connect(ctx context.Context) (*conn, error) {
	t, tail, cmd := s.transport.sdkTransport()
	c := &conn{tail: tail, cmd: cmd, done: make(chan struct{})}
	client := sdk.NewClient(&sdk.Implementation{Name: "starweaver", Version: version.String()}, &sdk.ClientOptions{
		// No roots, sampling or elicitation: the toolset only lists and
		// calls tools.
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { c.changed() },
	})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer to the MCP handshake within %s: %w", s.initTimeout(), err)
		}
		killGroup(cmd)
		return nil, s.unavailable("start", startError(err, tail))
	}
	c.session = cs
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if res := cs.InitializeResult(); res != nil {
		c.instructions = res.Instructions
	}
	go func() {
		_ = cs.Wait()
		close(c.done)
	}()
	return c, nil
}

// hold keeps the connection open for the run whose context is ctx, and
// releases it when ctx ends. A context that never ends holds nothing, and
// neither does one that cannot be a map key (no standard context is).
func (s *Toolset) hold(ctx context.Context) {
	if ctx.Done() == nil || !reflect.TypeOf(ctx).Comparable() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, held := s.runs[ctx]; held {
		return
	}
	s.runs[ctx] = context.AfterFunc(ctx, func() { s.release(ctx) })
}

// release ends the hold of run ctx and closes the connection when nothing
// holds it any more.
func (s *Toolset) release(ctx context.Context) {
	s.mu.Lock()
	if _, held := s.runs[ctx]; !held {
		s.mu.Unlock()
		return
	}
	delete(s.runs, ctx)
	c := s.idleConn()
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// idleConn takes the connection away when nothing holds it; s.mu is held.
func (s *Toolset) idleConn() *conn {
	if s.entered > 0 || len(s.runs) > 0 || s.conn == nil {
		return nil
	}
	c := s.conn
	s.conn = nil
	return c
}

// Enter connects to the server (starting a stdio server) unless it is
// connected already, and keeps the connection open until the matching
// Exit. ctx bounds the wait; the start itself is bounded by the
// initialisation timeout. On failure nothing is held and the error wraps
// ErrUnavailable (or is ctx's) and names the toolset.
func (s *Toolset) Enter(ctx context.Context, _ *tool.RunContext) error {
	if s.err != nil {
		return s.err
	}
	s.mu.Lock()
	s.entered++
	s.mu.Unlock()
	if _, err := s.session(ctx); err != nil {
		s.mu.Lock()
		s.entered--
		c := s.idleConn()
		s.mu.Unlock()
		if c != nil {
			c.close()
		}
		return err
	}
	return nil
}

// Exit undoes one Enter. When nothing else holds the connection (no other
// Enter, no run reading the toolset without Enter), it is closed and a
// stdio server stopped; the toolset connects again on its next use. Exit
// without a matching Enter only closes an idle connection.
func (s *Toolset) Exit(context.Context, *tool.RunContext) error {
	s.mu.Lock()
	if s.entered > 0 {
		s.entered--
	}
	c := s.idleConn()
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	return nil
}

// Close closes the connection (stopping a stdio server) whatever holds
// it, abandons a start in progress and forgets every hold. Calls in
// flight end at once as cancelled (tool.Cancelled). The toolset stays
// usable: its next use connects again.
// Close is idempotent and returns once the server has stopped.
func (s *Toolset) Close() error {
	s.mu.Lock()
	s.epoch++
	c := s.conn
	s.conn = nil
	if s.dialing != nil {
		s.dialing.cancel()
		s.dialing = nil
	}
	for ctx, stop := range s.runs {
		stop()
		delete(s.runs, ctx)
	}
	s.entered = 0
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	return nil
}
