package toolset

import (
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Register adds the tools of sets, prepared for rc, to r. Each tool is
// registered as a [tool.Entry] recording its toolset's name, id and
// [Defaults], so that the tool's own values win over the toolset's and
// those over the registry's.
//
// Register is all or nothing: it fails, leaving r unchanged, when a
// toolset's Tools fails, a tool is nil or cannot be registered (blank
// name, malformed schema, construction error), or a name is taken twice,
// whether inside one toolset, across toolsets or by a tool already in r.
// A duplicate is reported as a *[DuplicateError] naming the tool and both
// toolsets. Register must not run while r executes calls.
func Register(r *tool.Registry, rc *tool.RunContext, sets ...Toolset) error {
	if r == nil {
		return errors.New("toolset: Register into a nil registry")
	}
	staged := &tool.Registry{}
	// Runs register their toolsets again: the schemas compiled for r's
	// earlier runs are found in its cache.
	staged.SetSchemaCache(r.SchemaCache())
	owner := map[string]string{}
	for _, ts := range sets {
		if ts == nil {
			return errors.New("toolset: Register of a nil toolset")
		}
		tools, err := ts.Tools(rc)
		if err != nil {
			return fmt.Errorf("toolset %q: %w", ts.Name(), err)
		}
		defaults := ts.Defaults()
		for _, t := range tools {
			if t == nil {
				return fmt.Errorf("toolset %q: nil tool", ts.Name())
			}
			name := t.Definition().Name
			if prev, dup := owner[name]; dup {
				return &DuplicateError{Tool: name, First: prev, Second: ts.Name()}
			}
			if e, dup := r.Entry(name); dup {
				return &DuplicateError{Tool: name, First: e.Toolset, Second: ts.Name()}
			}
			owner[name] = ts.Name()
			err := staged.AddEntry(tool.Entry{
				Tool:        t,
				Toolset:     ts.Name(),
				ToolsetID:   ts.ID(),
				MaxRetries:  defaults.MaxRetries,
				Timeout:     defaults.Timeout,
				Concurrency: defaults.limiterFor(name),
			})
			if err != nil {
				return fmt.Errorf("toolset %q: %w", ts.Name(), err)
			}
		}
	}
	if err := r.Merge(staged); err != nil {
		return fmt.Errorf("toolset: registering: %w", err)
	}
	return nil
}
