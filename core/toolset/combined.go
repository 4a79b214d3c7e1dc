package toolset

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Combined returns the union of toolsets under one name, without an id.
// Tools come member by member, in order; instructions are concatenated in
// the same order. A tool name contributed twice is an error naming the
// tool and both toolsets.
//
// Members keep their own defaults: a member's tools carry its retry budget,
// timeout and concurrency cap in their configuration (where they set none), so the
// combined toolset itself reports zero Defaults. Combined panics if a
// member is nil.
func Combined(name string, toolsets ...Toolset) Toolset {
	for _, ts := range toolsets {
		mustToolset(ts, "Combined")
	}
	return &combined{name: name, members: append([]Toolset(nil), toolsets...)}
}

type combined struct {
	name    string
	members []Toolset
}

func (c *combined) Name() string       { return c.name }
func (c *combined) ID() string         { return "" }
func (c *combined) Defaults() Defaults { return Defaults{} }

// Unwrap returns the members (see [Walk]).
func (c *combined) Unwrap() []Toolset { return c.members }

func (c *combined) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	var out []tool.Tool
	owner := map[string]string{}
	for _, m := range c.members {
		tools, err := m.Tools(rc)
		if err != nil {
			return nil, fmt.Errorf("toolset %q: member %q: %w", c.name, m.Name(), err)
		}
		defaults := m.Defaults()
		for _, t := range tools {
			n := t.Definition().Name
			if prev, dup := owner[n]; dup {
				return nil, &DuplicateError{Tool: n, First: prev, Second: m.Name()}
			}
			owner[n] = m.Name()
			out = append(out, withDefaults(t, defaults))
		}
	}
	return out, nil
}

func (c *combined) Instructions(rc *tool.RunContext) []Instruction {
	var out []Instruction
	for _, m := range c.members {
		out = append(out, m.Instructions(rc)...)
	}
	return out
}

// withDefaults returns t with d applied to its configuration where t sets
// nothing, or t itself when d is zero.
func withDefaults(t tool.Tool, d Defaults) tool.Tool {
	if d.IsZero() {
		return t
	}
	cfg := *tool.ConfigOf(t)
	if cfg.MaxRetries == nil && d.MaxRetries != nil {
		n := *d.MaxRetries
		cfg.MaxRetries = &n
	}
	if cfg.Timeout <= 0 && d.Timeout > 0 {
		cfg.Timeout = d.Timeout
	}
	if cfg.Concurrency == nil {
		cfg.Concurrency = d.limiterFor(t.Definition().Name)
	}
	w := wrap(t, t.Definition())
	w.cfg = &cfg
	return w
}
