package bridge

import (
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Host preparation: availability checks, tool and toolset preparations
// and filter predicates written in the host language are asked through the
// run's pipe, as tool calls are, when core prepares definitions: per run
// step for a tool's check, once per run for a toolset's (core resolves
// toolsets when a run starts). The run goroutine waits for the answer; the
// wait ends with the run (RunContext.Ctx). Outside a run (an agent being
// built or restored) the definitions are kept unchanged.
//
// Asking through the pipe, rather than having the host evaluate its
// callbacks before it starts a run, gives them the real run context (run
// id, step, metadata, active tags) and keeps one place (core) deciding
// when definitions are prepared.

// prepareItem asks the host to prepare definitions with its callback.
type prepareItem struct {
	Kind        string            `json:"kind"`
	Token       int64             `json:"token"`
	Callback    int64             `json:"callback"`
	Context     prepareContext    `json:"context"`
	Definitions []tool.Definition `json:"definitions"`
}

type prepareContext struct {
	RunID          string         `json:"run_id"`
	ConversationID string         `json:"conversation_id"`
	RunStep        int            `json:"run_step"`
	Metadata       map[string]any `json:"metadata"`
	ActiveTags     []string       `json:"active_tags"`
}

// callbackError fails a run whose host callback failed while preparing
// definitions; the run's done item reports it as type "config".
type callbackError struct{ msg string }

func (e *callbackError) Error() string { return e.msg }

// hostPrepare asks the host's callback to prepare defs for rc. It returns
// nil when the definitions stay unchanged (no run, or the host said so). A
// failure of the callback fails the run and hides every definition.
func hostPrepare(rc *tool.RunContext, callback int64, defs []tool.Definition) []tool.Definition {
	if rc == nil || rc.Ctx == nil {
		return nil
	}
	run := runFrom(rc.Ctx)
	if run == nil {
		return nil
	}
	data, err := run.await(rc.Ctx, func(token int64) ([]byte, error) {
		return encodeItem(prepareItem{Kind: "prepare", Token: token, Callback: callback, Definitions: defs, Context: prepareContext{
			RunID: rc.RunID, ConversationID: rc.ConversationID, RunStep: rc.RunStep, Metadata: rc.Metadata, ActiveTags: rc.ActiveTags,
		}})
	})
	if err != nil {
		return []tool.Definition{} // the run is ending
	}
	var o struct {
		OK          bool               `json:"ok"`
		Definitions *[]tool.Definition `json:"definitions"`
		Message     string             `json:"message"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		run.fail(&callbackError{fmt.Sprintf("the host returned a malformed preparation: %v", err)})
		return []tool.Definition{}
	}
	if !o.OK {
		run.fail(&callbackError{o.Message})
		return []tool.Definition{}
	}
	if o.Definitions == nil {
		return nil
	}
	return *o.Definitions
}

// hostToolPrepare is a tool's Prepare asking the host: the host answers
// the one definition (possibly rewritten), none to hide it, or null to
// keep it. A rewritten definition keeps the tool's name.
func hostToolPrepare(callback int64) func(rc *tool.RunContext, d tool.Definition) (tool.Definition, bool) {
	return func(rc *tool.RunContext, d tool.Definition) (tool.Definition, bool) {
		out := hostPrepare(rc, callback, []tool.Definition{d})
		switch {
		case out == nil:
			return d, true
		case len(out) == 0:
			return d, false
		}
		nd := out[0]
		nd.Name = d.Name
		return nd, true
	}
}

// hostToolAvailable is a tool's Available asking the host: the host is
// sent no definitions and answers null (available) or none (unavailable).
func hostToolAvailable(callback int64) func(rc *tool.RunContext) bool {
	return func(rc *tool.RunContext) bool {
		out := hostPrepare(rc, callback, []tool.Definition{})
		return out == nil || len(out) > 0
	}
}

// hostToolsetPrepare wraps set so that the host's callback prepares its
// definitions (see toolset.Prepared for what the answer may be).
func hostToolsetPrepare(set toolset.Toolset, callback int64) toolset.Toolset {
	return toolset.Prepared(set, func(rc *tool.RunContext, defs []tool.Definition) []tool.Definition {
		return hostPrepare(rc, callback, defs)
	})
}
