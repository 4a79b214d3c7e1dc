package agent

import (
	"encoding/json"
	"slices"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// sentArguments maps a call's id to the arguments the model sent, for the
// calls whose arguments history keeps as text instead
// (tool.ArgumentsForHistory).
type sentArguments map[string]json.RawMessage

// keepReadable makes every tool call of a response readable by whoever
// reads history (Python's JSON reader included): arguments beyond the
// argument limits are replaced by a JSON string holding their text. It
// returns what the model sent for those calls, nil when none.
func keepReadable(m *model.Message) sentArguments {
	var sent sentArguments
	for i := range m.Parts {
		p := &m.Parts[i]
		if p.Kind != model.KindToolCall || p.ToolCall == nil {
			continue
		}
		safe, kept := tool.ArgumentsForHistory(p.ToolCall.Arguments)
		if kept {
			continue
		}
		if sent == nil {
			sent = sentArguments{}
		}
		sent[p.ToolCall.ID] = p.ToolCall.Arguments
		c := *p.ToolCall // a copy: the part may be shared with the model's own state
		c.Arguments = safe
		p.ToolCall = &c
	}
	return sent
}

// restore gives calls back the arguments the model sent, so the registry
// refuses them as invalid_arguments with the precise reason (too deep, a
// number too long, not UTF-8) before any hook or tool sees them.
func (s sentArguments) restore(calls []tool.Call) []tool.Call {
	if len(s) == 0 {
		return calls
	}
	out := slices.Clone(calls)
	for i := range out {
		if raw, ok := s[out[i].ID]; ok {
			out[i].Arguments = raw
		}
	}
	return out
}
