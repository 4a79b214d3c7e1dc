package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/starweaver-go/starweaver/core/tool"
)

// call returns the handler of the server tool named remote. The registry
// has validated the arguments against the tool's schema already.
//
// The call is bounded by ctx (the registry's timeouts included): when ctx
// ends first, the call returns ctx's error at once and the SDK sends
// notifications/cancelled for the request, so that the server can stop
// the work. The server's answer becomes a Result (see result); an error
// the server returns instead of a result is invalid_arguments for invalid
// params (the model can correct them) and an execution failure otherwise.
// A connection that ended (a stdio server that exited) is dropped, so the
// next call, a retry included, connects again; a connection closed here
// (Exit, Close) ends its calls in flight at once, as cancelled.
func (s *Toolset) call(remote string) tool.Handler {
	return func(ctx context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		c, err := s.session(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		cctx, done := c.bind(ctx)
		res, err := c.session.CallTool(cctx, &sdk.CallToolParams{Name: remote, Arguments: args})
		done()
		if err != nil {
			return tool.Result{}, s.callError(ctx, c, remote, err)
		}
		return result(res)
	}
}

// callError classifies the failure of a tools/call request.
func (s *Toolset) callError(ctx context.Context, c *conn, remote string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.ctx.Err() != nil {
		return tool.Cancelled(fmt.Sprintf("toolset %q closed its connection to the MCP server during the call", s.id))
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) && werr.Code == jsonrpc.CodeInvalidParams {
		return tool.InvalidArguments("the MCP server rejected the arguments: %s", werr.Message)
	}
	if errors.Is(err, sdk.ErrConnectionClosed) || !c.alive() {
		s.drop(c)
		return fmt.Errorf("toolset %q: tool %q: the MCP server closed the connection: %w", s.id, remote, startError(err, c.tail))
	}
	return fmt.Errorf("toolset %q: tool %q: %w", s.id, remote, err)
}

// drop forgets c if it is still the open connection.
func (s *Toolset) drop(c *conn) {
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
	}
	s.mu.Unlock()
	c.close()
}
