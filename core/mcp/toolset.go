package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Metadata keys every tool definition of an MCP toolset carries.
const (
	// MetaServerID is the toolset's id (the server's id in the agent).
	MetaServerID = "mcp_server_id"
	// MetaTransport is the transport kind (TransportStdio or
	// TransportStreamableHTTP).
	MetaTransport = "mcp_transport"
	// MetaToolName is the tool's name on the server, before any prefix.
	MetaToolName = "mcp_tool_name"
	// MetaTask reports whether calls run as MCP tasks; always false: every
	// call waits for the server's result.
	MetaTask = "mcp_task"
)

// DefaultInitTimeout bounds starting a server and the MCP handshake when
// Options.InitTimeout is not positive.
const DefaultInitTimeout = 30 * time.Second

// Options configure a Toolset. The zero value lists tools once per
// connection (and again after each list_changed notification), bounds
// the start by DefaultInitTimeout, and leaves tool calls to the
// registry's timeouts.
type Options struct {
	// ToolPrefix, when set, names every tool "{ToolPrefix}_{name}"; the
	// definition keeps the server's name under MetaToolName.
	ToolPrefix string
	// NoCache lists the tools again every time Tools is called.
	NoCache bool
	// InitTimeout bounds starting the server and the MCP handshake
	// (DefaultInitTimeout when not positive).
	InitTimeout time.Duration
	// ReadTimeout bounds each listing of the tools, when positive.
	ReadTimeout time.Duration
	// IncludeInstructions makes the instructions the server sends in its
	// initialize result the toolset's instructions.
	IncludeInstructions bool
	// Defaults are what the tools inherit (a timeout for each call, a
	// retry budget): tool > toolset > registry, as for every toolset.
	Defaults toolset.Defaults
	// Optional lets a run go on without the server when it cannot be
	// started or reached: the toolset is left out of the run, with a
	// toolset_unavailable event and a warning (agent.WithWarnings).
	// Without it such a run fails with an error naming the server (see
	// [toolset.Optionality]).
	Optional bool
}

// Toolset is a [toolset.Toolset] whose tools are those of an MCP server.
// It also implements [toolset.Lifecycle]. Build it with New; it is safe
// for concurrent use.
type Toolset struct {
	id        string
	transport Transport
	opts      Options
	// err is a configuration error; every use returns it.
	err error

	mu sync.Mutex
	// conn is the open connection, nil when there is none.
	conn *conn
	// dialing is the connection being opened, nil when none is.
	dialing *dial
	// epoch counts Close calls: a dial that started in an earlier epoch
	// is abandoned.
	epoch uint64
	// entered counts Enter calls not yet matched by Exit.
	entered int
	// runs are the run contexts that read the toolset without Enter; the
	// connection is closed when the last one ends (and nothing entered).
	runs map[context.Context]func() bool

	// built keeps the tools made from the server's definitions, by
	// server name, so that an unchanged definition keeps its tool (and
	// the registry its compiled schema) across listings.
	builtMu sync.Mutex
	built   map[string]builtTool
}

// New returns the toolset of the MCP server reached through t. id names
// the toolset (Name and ID) and is recorded on every definition under
// MetaServerID. Nothing is started until the toolset is entered or its
// tools are read. An empty id, an invalid transport or a negative
// timeout is reported by Err and by every use of the toolset.
func New(id string, t Transport, opts Options) *Toolset {
	s := &Toolset{id: id, transport: t, opts: opts, runs: map[context.Context]func() bool{}, built: map[string]builtTool{}}
	switch {
	case strings.TrimSpace(id) == "":
		s.err = fmt.Errorf("%w: an MCP toolset needs an id", ErrConfig)
	case t.Validate() != nil:
		s.err = fmt.Errorf("%w: toolset %q: %v", ErrConfig, id, t.Validate())
	case opts.InitTimeout < 0 || opts.ReadTimeout < 0:
		s.err = fmt.Errorf("%w: toolset %q: timeouts must not be negative", ErrConfig, id)
	case opts.Defaults.Timeout < 0:
		s.err = fmt.Errorf("%w: toolset %q: the tools' timeout must not be negative", ErrConfig, id)
	case opts.Defaults.MaxRetries != nil && *opts.Defaults.MaxRetries < 0:
		s.err = fmt.Errorf("%w: toolset %q: max_retries must not be negative", ErrConfig, id)
	}
	return s
}

// Optional reports Options.Optional: whether a run may go on without the
// server when Enter fails ([toolset.Optionality]).
func (s *Toolset) Optional() bool { return s.opts.Optional }

// Err reports a configuration error, or nil.
func (s *Toolset) Err() error { return s.err }

// Name returns the toolset's id.
func (s *Toolset) Name() string { return s.id }

// ID returns the toolset's id.
func (s *Toolset) ID() string { return s.id }

// Transport returns the transport the toolset connects through.
func (s *Toolset) Transport() Transport { return s.transport }

// Defaults returns Options.Defaults.
func (s *Toolset) Defaults() toolset.Defaults { return s.opts.Defaults }

// Instructions returns the server's instructions when
// Options.IncludeInstructions is set and the toolset is connected (it
// never connects by itself: Tools, which is read first, does).
func (s *Toolset) Instructions(*tool.RunContext) []toolset.Instruction {
	if !s.opts.IncludeInstructions {
		return nil
	}
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil || strings.TrimSpace(c.instructions) == "" {
		return nil
	}
	return []toolset.Instruction{{Group: s.id, Content: c.instructions}}
}

// Tools returns the server's tools, connecting first when the toolset is
// not connected (starting a stdio server). When rc carries a run context
// (rc.Ctx) that can end, the connection is held for that run: once every
// such run has ended and nothing entered the toolset, the connection is
// closed (the server stopped). Read outside a run, a connection stays
// open until Exit or Close.
//
// The list is cached per connection unless Options.NoCache is set, and
// listed again after the server sends notifications/tools/list_changed.
// A server that cannot be reached or listed is an error wrapping
// ErrUnavailable and naming the toolset.
func (s *Toolset) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	if s.err != nil {
		return nil, s.err
	}
	ctx := context.Background()
	if rc != nil && rc.Ctx != nil {
		ctx = rc.Ctx
		s.hold(rc.Ctx)
	}
	c, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.list(ctx, c)
}

var (
	_ toolset.Toolset     = (*Toolset)(nil)
	_ toolset.Lifecycle   = (*Toolset)(nil)
	_ toolset.Optionality = (*Toolset)(nil)
)
