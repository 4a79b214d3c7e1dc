package anthropic

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func TestFinishReason(t *testing.T) {
	for stop, want := range map[string]string{
		"end_turn": model.FinishStop, "stop_sequence": model.FinishStop, "pause_turn": model.FinishStop,
		"max_tokens": model.FinishLength, "model_context_window_exceeded": model.FinishLength,
		"tool_use": model.FinishToolCalls, "refusal": model.FinishContentFilter,
		"": "", "something_new": "",
	} {
		if got := finishReason(stop); got != want {
			t.Errorf("finishReason(%q) = %q, want %q", stop, got, want)
		}
	}
}
