package bridge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// instructionsItem asks the host for a toolset's per-context
// instructions; the outcome is {"ok": true, "instructions": "text"} (blank
// for none) or {"ok": false, "message": "..."}, which ends the run as a
// failing preparation does (see hostprepare.go).
type instructionsItem struct {
	Kind     string         `json:"kind"`
	Token    int64          `json:"token"`
	Callback int64          `json:"callback"`
	Context  prepareContext `json:"context"`
}

// hostInstructions adds the host's per-context instructions to a
// toolset's own, in the toolset's instruction group (core keeps one
// instruction per group, so they join the static text rather than
// compete with it). Core asks once per run; outside a run the host is not
// asked.
type hostInstructions struct {
	toolset.Toolset
	callback int64
}

// Unwrap returns the toolset whose instructions h adds to (see
// toolset.Walk).
func (h *hostInstructions) Unwrap() toolset.Toolset { return h.Toolset }

func (h *hostInstructions) Instructions(rc *tool.RunContext) []toolset.Instruction {
	ins := h.Toolset.Instructions(rc)
	text := h.ask(rc)
	if strings.TrimSpace(text) == "" {
		return ins
	}
	group := h.Name()
	for i, in := range ins {
		if in.Group == group {
			out := append([]toolset.Instruction(nil), ins...)
			out[i].Content = strings.TrimRight(in.Content, "\n") + "\n\n" + text
			return out
		}
	}
	return append(ins, toolset.Instruction{Group: group, Content: text})
}

func (h *hostInstructions) ask(rc *tool.RunContext) string {
	if rc == nil || rc.Ctx == nil {
		return ""
	}
	run := runFrom(rc.Ctx)
	if run == nil {
		return ""
	}
	data, err := run.await(rc.Ctx, func(token int64) ([]byte, error) {
		return encodeItem(instructionsItem{Kind: "instructions", Token: token, Callback: h.callback, Context: prepareContext{
			RunID: rc.RunID, ConversationID: rc.ConversationID, RunStep: rc.RunStep, Metadata: rc.Metadata, ActiveTags: rc.ActiveTags,
		}})
	})
	if err != nil {
		return "" // the run is ending
	}
	var o struct {
		OK           bool   `json:"ok"`
		Instructions string `json:"instructions"`
		Message      string `json:"message"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		run.fail(&callbackError{fmt.Sprintf("the host returned malformed instructions: %v", err)})
		return ""
	}
	if !o.OK {
		run.fail(&callbackError{o.Message})
		return ""
	}
	return o.Instructions
}
