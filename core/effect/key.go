package effect

import "github.com/starweaver-go/starweaver/core/internal/effectclass"

// Key returns the idempotency key of the callIndex-th tool call (counting
// from 0 in the model's order) of turn turn of run runID in session
// sessionID:
//
//	session/<sessionID>/run/<runID>/turn/<turn>/call/<callIndex>
//
// with sessionID and runID path-escaped (url.PathEscape, so "/" and "%"
// inside them are escaped and two different inputs never give one key),
// and turn and callIndex in decimal.
//
// The key names the call by its position, not by the provider's call id:
// a turn that is re-driven after a crash asks the model again and gets new
// call ids, but the call at the same position is the same effect, and its
// journal record must be found again. The format is stable; journals
// written by one version are read by the next.
//
// Key panics if turn or callIndex is negative (a caller bug).
func Key(sessionID, runID string, turn, callIndex int) string {
	return effectclass.Key(sessionID, runID, turn, callIndex)
}
