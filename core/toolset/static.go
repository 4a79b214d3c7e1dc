package toolset

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Static is a toolset with a fixed list of tools and instructions, built
// by [NewStatic] from a [StaticOptions], or by New and the With methods, a
// chain over the same settings. In the chain, building problems (a nil
// tool, a duplicate name, a negative budget) do not panic: the first one
// is kept, reported by Err and returned by Tools, so registration fails
// with it; NewStatic returns it.
//
// The With methods must not be called once the toolset is in use.
type Static struct {
	name         string
	id           string
	tools        []tool.Tool
	names        map[string]bool
	instructions []Instruction
	defaults     Defaults
	err          error
}

var _ Toolset = (*Static)(nil)

// New returns a static toolset named name holding tools. A blank name is
// a building error.
func New(name string, tools ...tool.Tool) *Static {
	s := &Static{name: name, names: map[string]bool{}}
	if name == "" {
		s.fail(errors.New("toolset: name must not be empty"))
	}
	return s.WithTools(tools...)
}

// StaticOptions configures a Static toolset built by [NewStatic]. The zero
// value is the defaults: no id, no tools, no instructions, and nothing for
// the tools to inherit. Each field is what the With method of the same
// name sets, with the same checks.
type StaticOptions struct {
	// ID is the stable id (see WithID).
	ID string
	// Tools are added in order; a nil tool or a name already in the
	// toolset is an error (see WithTool).
	Tools []tool.Tool
	// Instructions are added in order; a blank Group means the toolset's
	// name (see WithInstruction).
	Instructions []Instruction
	// MaxRetries is the retry budget inherited by tools that set none
	// (nil: none; negative: an error; see WithMaxRetries).
	MaxRetries *int
	// Timeout is inherited by tools that set none (0: none, the agent's
	// applies; negative: an error; see WithTimeout).
	Timeout time.Duration
	// MaxConcurrency caps how many calls of each tool run at once, for
	// tools that set no limit (0: no cap; negative: an error; see
	// WithMaxConcurrency).
	MaxConcurrency int
}

// NewStatic returns a static toolset named name configured by o, or the
// first building error (a blank name, a nil or duplicate tool, an invalid
// budget): the same toolset and the same error as New(name) followed by
// the With method of each field set in o, in the order of the fields.
func NewStatic(name string, o StaticOptions) (*Static, error) {
	s := New(name)
	if o.ID != "" {
		s.WithID(o.ID)
	}
	s.WithTools(o.Tools...)
	for _, in := range o.Instructions {
		s.WithInstruction(in.Group, in.Content)
	}
	if o.MaxRetries != nil {
		s.WithMaxRetries(*o.MaxRetries)
	}
	if o.Timeout != 0 {
		s.WithTimeout(o.Timeout)
	}
	if o.MaxConcurrency != 0 {
		s.WithMaxConcurrency(o.MaxConcurrency)
	}
	if s.err != nil {
		return nil, s.err
	}
	return s, nil
}

func (s *Static) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// WithID sets the stable id.
func (s *Static) WithID(id string) *Static {
	s.id = id
	return s
}

// WithTool adds one tool. A nil tool or a name already in the toolset is a
// building error; the earlier tool stays.
func (s *Static) WithTool(t tool.Tool) *Static {
	if t == nil {
		s.fail(fmt.Errorf("toolset %q: nil tool", s.name))
		return s
	}
	n := t.Definition().Name
	if s.names[n] {
		s.fail(&DuplicateError{Tool: n, First: s.name, Second: s.name})
		return s
	}
	s.names[n] = true
	s.tools = append(s.tools, t)
	return s
}

// WithTools adds tools in order, as WithTool does.
func (s *Static) WithTools(tools ...tool.Tool) *Static {
	for _, t := range tools {
		s.WithTool(t)
	}
	return s
}

// WithInstruction adds an instruction. A blank group means the toolset's
// name.
func (s *Static) WithInstruction(group, content string) *Static {
	if group == "" {
		group = s.name
	}
	s.instructions = append(s.instructions, Instruction{Group: group, Content: content})
	return s
}

// WithInstructions adds contents as one instruction of the toolset's
// group, joined by blank lines: one block per toolset keeps prompts
// compact. No contents adds nothing.
func (s *Static) WithInstructions(contents ...string) *Static {
	if len(contents) == 0 {
		return s
	}
	return s.WithInstruction("", strings.Join(contents, "\n\n"))
}

// WithMaxRetries sets the retry budget inherited by tools that set none.
// A negative n is a building error (see [tool.CheckMaxRetries]).
func (s *Static) WithMaxRetries(n int) *Static {
	if err := tool.CheckMaxRetries(n); err != nil {
		s.fail(fmt.Errorf("toolset %q: %w", s.name, err))
		return s
	}
	s.defaults.MaxRetries = &n
	return s
}

// WithTimeout sets the timeout inherited by tools that set none. A
// timeout that is not positive is a building error (see
// [tool.CheckTimeout]); a toolset that sets none inherits the agent's.
func (s *Static) WithTimeout(d time.Duration) *Static {
	if err := tool.CheckTimeout(d); err != nil {
		s.fail(fmt.Errorf("toolset %q: %w", s.name, err))
		return s
	}
	s.defaults.Timeout = d
	return s
}

// WithMaxConcurrency caps how many calls of each of the toolset's tools
// run at once (each tool on its own; see tool.Limiter), for tools that set
// no limit of their own. The caps live with the toolset, so the runs of
// an agent share them. A limit below 1 is a building error (see
// [tool.CheckMaxConcurrency]).
func (s *Static) WithMaxConcurrency(n int) *Static {
	if err := tool.CheckMaxConcurrency(n); err != nil {
		s.fail(fmt.Errorf("toolset %q: %w", s.name, err))
		return s
	}
	s.defaults.Concurrency = tool.NewLimiters(n)
	return s
}

// Err returns the first building error of the With chain, or nil.
func (s *Static) Err() error { return s.err }

// Name returns the toolset's name.
func (s *Static) Name() string { return s.name }

// ID returns the stable id, or "".
func (s *Static) ID() string { return s.id }

// Tools returns the tools in the order they were added, or the building
// error. rc is ignored.
func (s *Static) Tools(*tool.RunContext) ([]tool.Tool, error) {
	if s.err != nil {
		return nil, s.err
	}
	return slices.Clone(s.tools), nil
}

// Instructions returns the instructions in the order they were added.
func (s *Static) Instructions(*tool.RunContext) []Instruction {
	return slices.Clone(s.instructions)
}

// Defaults returns the inherited defaults.
func (s *Static) Defaults() Defaults {
	d := s.defaults
	if d.MaxRetries != nil {
		n := *d.MaxRetries
		d.MaxRetries = &n
	}
	return d
}
