package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/starweaver-go/starweaver/core/model"
)

// parseResponse maps a Messages API response onto a response message.
func (m *Model) parseResponse(r *sdk.Message) (model.Message, error) {
	refused := r.StopReason == sdk.StopReasonRefusal
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
			args := b.Input
			if len(args) > 0 && !json.Valid(args) {
				return model.Message{}, fmt.Errorf("%w: anthropic: tool_use block %q has invalid input", model.ErrModel, b.ID)
			}
			parts = append(parts, model.ToolCallPart(b.ID, b.Name, append(json.RawMessage(nil), args...)))
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
	usage := &model.Usage{
		Requests:         1,
		InputTokens:      int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(u.CacheReadInputTokens),
		CacheWriteTokens: int(u.CacheCreationInputTokens),
		ReasoningTokens:  int(u.OutputTokensDetails.ThinkingTokens),
	}
	msg := model.Response(parts...)
	msg.Usage = usage
	msg.ModelName = string(r.Model)
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
func finishReason(s sdk.StopReason) string {
	switch s {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence, sdk.StopReasonPauseTurn:
		return model.FinishStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return model.FinishLength
	case sdk.StopReasonToolUse:
		return model.FinishToolCalls
	case sdk.StopReasonRefusal:
		return model.FinishContentFilter
	}
	return ""
}
