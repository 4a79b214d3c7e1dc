package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/starweaver-go/starweaver/core/tool"
)

// builtTool is a tool made from a server definition, with that
// definition's JSON to tell whether a new listing changed it.
type builtTool struct {
	raw  []byte
	tool tool.Tool
}

// list returns c's tools: the cached list when there is one (and caching
// is on), else a new listing, bounded by ctx and Options.ReadTimeout.
func (s *Toolset) list(ctx context.Context, c *conn) ([]tool.Tool, error) {
	c.mu.Lock()
	cached, changes := c.tools, c.changes
	c.mu.Unlock()
	if cached != nil && !s.opts.NoCache {
		return append([]tool.Tool(nil), cached...), nil
	}
	if s.opts.ReadTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.ReadTimeout)
		defer cancel()
	}
	ctx, done := c.bind(ctx)
	defer done()
	var defs []*sdk.Tool
	for d, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, s.unavailable("list tools", startError(err, c.tail))
		}
		defs = append(defs, d)
	}
	tools := make([]tool.Tool, 0, len(defs))
	for _, d := range defs {
		t, err := s.adapt(d)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	c.mu.Lock()
	if c.changes == changes {
		c.tools = tools
	}
	c.mu.Unlock()
	return append([]tool.Tool(nil), tools...), nil
}

// adapt returns the tool for the server definition d: the one built
// before when d has not changed, else a new one built with tool.New from
// d's input schema (normalised and checked when it is registered).
func (s *Toolset) adapt(d *sdk.Tool) (tool.Tool, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("toolset %q: tool %q: %w", s.id, d.Name, err)
	}
	s.builtMu.Lock()
	defer s.builtMu.Unlock()
	if b, ok := s.built[d.Name]; ok && bytes.Equal(b.raw, raw) {
		return b.tool, nil
	}
	var schema map[string]any
	if d.InputSchema != nil {
		b, err := json.Marshal(d.InputSchema)
		if err == nil {
			err = json.Unmarshal(b, &schema)
		}
		if err != nil {
			return nil, fmt.Errorf("toolset %q: tool %q: the input schema is not a JSON object: %w", s.id, d.Name, err)
		}
	}
	name := d.Name
	if s.opts.ToolPrefix != "" {
		name = s.opts.ToolPrefix + "_" + d.Name
	}
	description := d.Description
	if description == "" && d.Annotations != nil {
		description = d.Annotations.Title
	}
	if description == "" {
		description = d.Title
	}
	t := tool.New(name, description, schema, s.call(d.Name)).WithMetadata(map[string]any{
		MetaServerID:  s.id,
		MetaTransport: s.transport.Kind,
		MetaToolName:  d.Name,
		MetaTask:      false,
	})
	s.built[d.Name] = builtTool{raw: raw, tool: t}
	return t, nil
}
