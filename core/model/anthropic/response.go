package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// parseResponse maps a Messages API response onto a response message.
func (m *Model) parseResponse(r *wireResponse) (model.Message, error) {
	refused := r.StopReason == "refusal"
	if len(r.Content) == 0 && !refused {
		return model.Message{}, fmt.Errorf("%w: anthropic: response %q has no content blocks (stop reason %q)", model.ErrModel, r.ID, r.StopReason)
	}
	parts := make([]model.Part, 0, len(r.Content)+1)
	for i := range r.Content {
		b := &r.Content[i]
		switch b.Type {
		case "text":
			parts = append(parts, model.TextPart(b.Text))
		case "tool_use":
			if len(b.Input) > 0 && !json.Valid(b.Input) {
				return model.Message{}, fmt.Errorf("%w: anthropic: tool_use block %q has invalid input", model.ErrModel, b.ID)
			}
			parts = append(parts, model.ToolCallPart(b.ID, b.Name, b.Input))
		case "thinking":
			parts = append(parts, model.ThinkingPart(b.Thinking, model.Thinking{Provider: ProviderName, Signature: b.Signature}))
		case "redacted_thinking":
			parts = append(parts, model.ThinkingPart("", model.Thinking{Provider: ProviderName, Encrypted: b.Data}))
		default:
			return model.Message{}, fmt.Errorf("%w: anthropic: unsupported content block type %q", model.ErrModel, b.Type)
		}
	}
	if refused {
		parts = append(parts, model.RefusalPart(r.StopDetails.Explanation))
	}
	u := r.Usage
	msg := model.Response(parts...)
	msg.Usage = &model.Usage{
		Requests:         1,
		InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
		ReasoningTokens:  u.OutputTokensDetails.ThinkingTokens,
	}
	msg.ModelName = r.Model
	if msg.ModelName == "" {
		msg.ModelName = m.name
	}
	msg.FinishReason = finishReason(r.StopReason)
	msg.Provider = m.provider
	msg.ResponseID = r.ID
	return msg, nil
}

// finishReason maps a stop reason onto the Finish* constants; an unknown
// or missing one maps to "" rather than to a guess.
func finishReason(s string) string {
	switch s {
	case "end_turn", "stop_sequence", "pause_turn":
		return model.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return model.FinishLength
	case "tool_use":
		return model.FinishToolCalls
	case "refusal":
		return model.FinishContentFilter
	}
	return ""
}
