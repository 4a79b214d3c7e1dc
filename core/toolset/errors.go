package toolset

import (
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// DuplicateError reports a tool name contributed twice. It unwraps to
// [tool.ErrDuplicateTool], so errors.Is(err, tool.ErrDuplicateTool) holds.
type DuplicateError struct {
	// Tool is the duplicated tool name.
	Tool string
	// First and Second name the toolsets that contributed it, in order.
	// They are equal when one toolset holds the name twice; First is ""
	// when the first tool was registered directly, outside any toolset.
	First, Second string
}

func (e *DuplicateError) Error() string {
	switch {
	case e.First == "":
		return fmt.Sprintf("toolset: duplicate tool name %q: already registered, contributed again by toolset %q", e.Tool, e.Second)
	case e.First == e.Second:
		return fmt.Sprintf("toolset: duplicate tool name %q in toolset %q", e.Tool, e.First)
	default:
		return fmt.Sprintf("toolset: duplicate tool name %q in toolsets %q and %q", e.Tool, e.First, e.Second)
	}
}

// Unwrap returns [tool.ErrDuplicateTool].
func (e *DuplicateError) Unwrap() error { return tool.ErrDuplicateTool }

// ErrPrepareRenamed is returned by a [Prepared] toolset whose prepare
// function returned a definition that matches no tool: prepare may drop or
// rewrite definitions but not rename or add tools (use [Renamed]).
var ErrPrepareRenamed = errors.New("toolset: prepare renamed or added a tool")
