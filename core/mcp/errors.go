package mcp

import (
	"errors"
	"fmt"
)

// ErrUnavailable is wrapped by the errors of a toolset whose server could
// not be started, did not answer the MCP handshake in time, or could not
// list its tools.
var ErrUnavailable = errors.New("mcp: server unavailable")

// ErrConfig is wrapped by the errors of a toolset built with an invalid
// id, transport or option; every use of such a toolset fails with it.
var ErrConfig = errors.New("mcp: invalid toolset")

// unavailable wraps err as an ErrUnavailable error naming the toolset.
func (s *Toolset) unavailable(what string, err error) error {
	return fmt.Errorf("%w: toolset %q (%s): %s: %w", ErrUnavailable, s.id, s.transport, what, err)
}
