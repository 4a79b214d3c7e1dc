package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// handoffSpec is agent.Handoff as a host gives it: the receiving agent by
// its handle, and the host ids of its callbacks (0: none). Each callback
// is called like a host tool that reads its context (a "call" item, so it
// ends with the run like any call): OnHandoff with no arguments, its
// failure failing the run; InputFilter with {"messages": [...]}, the
// conversation so far, its value the list of messages the receiving
// agent's model reads.
type handoffSpec struct {
	Agent       int64  `json:"agent"`
	ToolName    string `json:"tool_name"`
	Description string `json:"description"`
	OnHandoff   int64  `json:"on_handoff"`
	InputFilter int64  `json:"input_filter"`
}

func (s handoffSpec) build() (agent.Handoff, error) {
	to, err := lookup[*agent.Agent](s.Agent)
	if err != nil {
		return agent.Handoff{}, specError("handoff %q: %v", s.ToolName, err)
	}
	h := agent.Handoff{Agent: to, ToolName: s.ToolName, Description: s.Description}
	if s.OnHandoff != 0 {
		host := &hostTool{id: s.OnHandoff, def: tool.Definition{Name: "on_handoff"}, context: true}
		h.OnHandoff = func(ctx context.Context, in agent.HandoffInput) error {
			_, err := host.Call(ctx, in.Context, json.RawMessage("{}"))
			return err
		}
	}
	if s.InputFilter != 0 {
		host := &hostTool{id: s.InputFilter, def: tool.Definition{Name: "input_filter"}, context: true}
		h.InputFilter = func(ctx context.Context, in agent.HandoffInput, history []model.Message) ([]model.Message, error) {
			args, err := json.Marshal(map[string]any{"messages": history})
			if err != nil {
				return nil, fmt.Errorf("encoding the history: %w", err)
			}
			res, err := host.Call(ctx, in.Context, args)
			if err != nil {
				return nil, err
			}
			b, ok := res.Content.(json.RawMessage)
			if !ok {
				return nil, fmt.Errorf("the host's input filter returned no list of messages")
			}
			var out []model.Message
			if err := json.Unmarshal(b, &out); err != nil {
				return nil, fmt.Errorf("the host's input filter returned malformed messages: %w", err)
			}
			return out, nil
		}
	}
	return h, nil
}

// buildHandoffs builds the handoffs of an agent spec.
func buildHandoffs(specs []handoffSpec) ([]agent.Handoff, error) {
	out := make([]agent.Handoff, 0, len(specs))
	for _, s := range specs {
		h, err := s.build()
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}
