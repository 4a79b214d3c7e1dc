package modeltest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// LiveToolRoundTrip is the opt-in check of a real API (a provider's
// live_test.go, skipped without credentials): for streamed and unstreamed
// models from newModel, it asks for a tool call, answers it and expects a
// final text with a stop and its usage.
func LiveToolRoundTrip(t *testing.T, newModel func(t *testing.T, streaming bool) model.Model) {
	t.Helper()
	weather := tool.Definition{Name: "get_weather", Description: "Current weather of a city",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}
	params := model.Params{Tools: []tool.Definition{weather}}
	ctx := context.Background()
	for _, streaming := range []bool{false, true} {
		m := newModel(t, streaming)
		history := []model.Message{model.Request(model.SystemPrompt("Use the tools."), model.UserPrompt("What's the weather in Paris?"))}
		first, err := m.Request(ctx, history, params)
		if err != nil {
			t.Fatal(err)
		}
		calls := first.ToolCalls()
		if len(calls) == 0 || !json.Valid(calls[0].Arguments) {
			t.Fatalf("streaming=%v: no tool call: %+v", streaming, first.Parts)
		}
		var returns []model.Part
		for _, c := range calls {
			returns = append(returns, model.ToolReturn(tool.Return{ToolCallID: c.ID, Name: c.Name, Content: map[string]any{"temp_c": 18, "sky": "clear"}}))
		}
		history = append(history, first, model.Request(returns...))
		final, err := m.Request(ctx, history, params)
		if err != nil {
			t.Fatal(err)
		}
		if final.Text() == "" || final.FinishReason != model.FinishStop || final.Usage == nil || final.Usage.InputTokens == 0 {
			t.Fatalf("streaming=%v: final = %+v usage %+v", streaming, final.Parts, final.Usage)
		}
	}
}
