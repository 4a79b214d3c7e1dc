package intent

import (
	"context"
	"strconv"
)

// PauseKind names a point of realisation where a test may stop the
// process (to kill it, and check that a redrive recovers).
type PauseKind string

// Pause points.
const (
	// PauseAfterToolAttemptCommit: the final attempt is committed, no
	// intent has been drained yet.
	PauseAfterToolAttemptCommit PauseKind = "after_tool_attempt_commit"
	// PauseBeforeProcessCommand: intents before Index are recorded; intent
	// Index's command has not run.
	PauseBeforeProcessCommand PauseKind = "before_process_command"
	// PauseAfterProcessCommandCommit: intent Index's command is committed
	// by the Commands, its outcome not yet recorded by the Realiser.
	PauseAfterProcessCommandCommit PauseKind = "after_process_command_commit"
)

// PausePoint is one point of realisation.
type PausePoint struct {
	Kind  PauseKind
	Index int
}

// AfterToolAttemptCommit returns that pause point.
func AfterToolAttemptCommit() PausePoint { return PausePoint{Kind: PauseAfterToolAttemptCommit} }

// BeforeProcessCommand returns the pause point before intent i's command.
func BeforeProcessCommand(i int) PausePoint {
	return PausePoint{Kind: PauseBeforeProcessCommand, Index: i}
}

// AfterProcessCommandCommit returns the pause point after intent i's
// command committed.
func AfterProcessCommandCommit(i int) PausePoint {
	return PausePoint{Kind: PauseAfterProcessCommandCommit, Index: i}
}

func (p PausePoint) String() string {
	if p.Kind == PauseAfterToolAttemptCommit {
		return string(p.Kind)
	}
	return string(p.Kind) + "(" + strconv.Itoa(p.Index) + ")"
}

// PauseFunc is called at each pause point, synchronously; realisation
// goes on when it returns.
type PauseFunc func(ctx context.Context, p PausePoint)
