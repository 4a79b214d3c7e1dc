package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/tool"
)

func anthropicThinking() anthropic.Options { return anthropic.Options{ThinkingBudget: 2048} }

func weatherTool() tool.Definition {
	return tool.Definition{
		Name:        "get_weather",
		Description: "Get the current weather in a given location",
		Parameters: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"location": map[string]any{"type": "string"}},
			"required":             []any{"location"},
			"additionalProperties": false,
		},
	}
}

// TestToolRoundTrip sends the calls of one response back with their
// returns: the second request carries the assistant's blocks in order and
// every tool_result (and a retry prompt's) in one user message, results
// first.
func TestToolRoundTrip(t *testing.T) {
	f := newFake(t, reply{file: "tool_use_parallel.json"}, reply{file: "text.json"})
	m := f.model(0)
	history := ask("Weather and time in SF?")
	first, err := m.Request(context.Background(), history, model.Params{Tools: []tool.Definition{weatherTool()}})
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, first, model.Request(
		model.ToolReturn(tool.Return{ToolCallID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Content: map[string]any{"temp_f": 65}}),
		model.ToolReturn(tool.Return{ToolCallID: "toolu_01B19q90qw90lq917835lq8", Name: "get_time", Content: "12:04", IsError: true}),
	), model.Request(model.UserPrompt("And tomorrow?")))
	if _, err := m.Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	msgs := f.Body(1)["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("messages = %s", jsonOf(t, msgs))
	}
	wantAssistant := `{"content":[` +
		`{"text":"I'll check the weather and the time in San Francisco.","type":"text"},` +
		`{"id":"toolu_01A09q90qw90lq917835lq9","input":{"location":"San Francisco, CA"},"name":"get_weather","type":"tool_use"},` +
		`{"id":"toolu_01B19q90qw90lq917835lq8","input":{"timezone":"America/Los_Angeles"},"name":"get_time","type":"tool_use"}],"role":"assistant"}`
	if got := jsonOf(t, msgs[1]); got != wantAssistant {
		t.Fatalf("assistant = %s\nwant        %s", got, wantAssistant)
	}
	wantUser := `{"content":[` +
		`{"content":[{"text":"{\"temp_f\":65}","type":"text"}],"tool_use_id":"toolu_01A09q90qw90lq917835lq9","type":"tool_result"},` +
		`{"content":[{"text":"12:04","type":"text"}],"is_error":true,"tool_use_id":"toolu_01B19q90qw90lq917835lq8","type":"tool_result"},` +
		`{"text":"And tomorrow?","type":"text"}],"role":"user"}`
	if got := jsonOf(t, msgs[2]); got != wantUser {
		t.Fatalf("user = %s\nwant   %s", got, wantUser)
	}
}

func TestRetryPromptMapping(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	history := append(ask("Weather?"),
		model.Response(model.ToolCallPart("toolu_1", "get_weather", json.RawMessage(`{"location":`))),
		model.Request(model.RetryPrompt("location must be a string", "toolu_1"), model.RetryPrompt("Answer in French.", "")),
	)
	if _, err := f.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	msgs := f.Body(0)["messages"].([]any)
	// Malformed arguments go back as {}: the API only accepts an object.
	if got := jsonOf(t, msgs[1]); got != `{"content":[{"id":"toolu_1","input":{},"name":"get_weather","type":"tool_use"}],"role":"assistant"}` {
		t.Fatalf("assistant = %s", got)
	}
	want := `{"content":[{"content":[{"text":"location must be a string","type":"text"}],"is_error":true,"tool_use_id":"toolu_1","type":"tool_result"},{"text":"Answer in French.","type":"text"}],"role":"user"}`
	if got := jsonOf(t, msgs[2]); got != want {
		t.Fatalf("user = %s\nwant   %s", got, want)
	}
}

// TestThinkingRoundTrip sends thinking back with its signature, redacted
// thinking as its data, in order, and drops another provider's reasoning.
func TestThinkingRoundTrip(t *testing.T) {
	f := newFake(t, reply{file: "thinking.json"}, reply{file: "text.json"})
	m := f.modelWith(0, anthropicThinking())
	history := ask("Weather in Paris?")
	first, err := m.Request(context.Background(), history, model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	first.Parts = append([]model.Part{
		model.ThinkingPart("openai reasoning", model.Thinking{Provider: "openai", ID: "rs_1"}),
		model.ThinkingPart("", model.Thinking{Provider: "anthropic", Encrypted: "EmwKAhgB"}),
	}, first.Parts...)
	history = append(history, first, model.Request(model.ToolReturn(tool.Return{ToolCallID: "toolu_01CswdEQBMshySk6Y9DFKrfq", Name: "get_weather", Content: "sunny"})))
	if _, err := m.Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	msgs := f.Body(1)["messages"].([]any)
	want := `{"content":[` +
		`{"data":"EmwKAhgB","type":"redacted_thinking"},` +
		`{"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds","thinking":"The user wants the weather in Paris. I should call get_weather.","type":"thinking"},` +
		`{"id":"toolu_01CswdEQBMshySk6Y9DFKrfq","input":{"location":"Paris"},"name":"get_weather","type":"tool_use"}],"role":"assistant"}`
	if got := jsonOf(t, msgs[1]); got != want {
		t.Fatalf("assistant = %s\nwant        %s", got, want)
	}
}

func TestInstructionsJoinSystem(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	first := model.Request(model.SystemPrompt("You are terse."), model.UserPrompt("Hi"))
	first.Instructions = "old instructions"
	last := model.Request(model.Instruction("Cite sources."), model.UserPrompt("Again"))
	last.Instructions = "Use metric units."
	history := []model.Message{first, model.Response(model.TextPart("Hello.")), last}
	if _, err := f.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	want := `[{"text":"You are terse.","type":"text"},{"text":"Cite sources.","type":"text"},{"text":"Use metric units.","type":"text"}]`
	if got := jsonOf(t, f.Body(0)["system"]); got != want {
		t.Fatalf("system = %s\nwant     %s", got, want)
	}
}

func TestSettingsOnTheWire(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	temp, topP, maxTok, seed, par := 0.2, 0.9, 512, int64(7), false
	params := model.Params{
		Tools: []tool.Definition{func() tool.Definition { d := weatherTool(); d.Strict = &[]bool{true}[0]; return d }()},
		Settings: model.Settings{
			Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, Seed: &seed,
			Stop: []string{"END"}, ParallelToolCalls: &par, ToolChoice: "required",
			ExtraHeaders: map[string]string{"anthropic-beta": "test-beta"},
			ExtraBody:    map[string]any{"metadata": map[string]any{"user_id": "u-1"}},
		},
	}
	if _, err := f.model(0).Request(context.Background(), ask("Hi"), params); err != nil {
		t.Fatal(err)
	}
	b := f.Body(0)
	for key, want := range map[string]string{
		"temperature":    `0.2`,
		"top_p":          `0.9`,
		"max_tokens":     `512`,
		"stop_sequences": `["END"]`,
		"tool_choice":    `{"disable_parallel_tool_use":true,"type":"any"}`,
		"metadata":       `{"user_id":"u-1"}`,
		"tools": `[{"description":"Get the current weather in a given location","input_schema":{"additionalProperties":false,` +
			`"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"},"name":"get_weather","strict":true}]`,
	} {
		if got := jsonOf(t, b[key]); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	if _, ok := b["seed"]; ok {
		t.Errorf("seed sent: Anthropic has no seed")
	}
	if h := f.Request(0).Header.Get("Anthropic-Beta"); h != "test-beta" {
		t.Errorf("anthropic-beta header = %q", h)
	}
}

func TestToolChoice(t *testing.T) {
	par := false
	for _, tc := range []struct {
		choice   string
		parallel *bool
		want     string
	}{
		{"", nil, `null`},
		{"", &par, `{"disable_parallel_tool_use":true,"type":"auto"}`},
		{"auto", nil, `{"type":"auto"}`},
		{"none", &par, `{"type":"none"}`},
		{"required", nil, `{"type":"any"}`},
		{"get_weather", &par, `{"disable_parallel_tool_use":true,"name":"get_weather","type":"tool"}`},
	} {
		f := newFake(t, reply{file: "text.json"})
		params := model.Params{Tools: []tool.Definition{weatherTool()}, Settings: model.Settings{ToolChoice: tc.choice, ParallelToolCalls: tc.parallel}}
		if _, err := f.model(0).Request(context.Background(), ask("Hi"), params); err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, f.Body(0)["tool_choice"]); got != tc.want {
			t.Errorf("tool_choice %q parallel %v = %s, want %s", tc.choice, tc.parallel, got, tc.want)
		}
	}
}

func TestOutputModes(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	f := newFake(t, reply{file: "text.json"}, reply{file: "text.json"})
	m := f.model(0)
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{Output: &model.Output{Mode: model.OutputNative, Name: "City", Schema: schema}}); err != nil {
		t.Fatal(err)
	}
	want := `{"format":{"schema":{"properties":{"city":{"type":"string"}},"type":"object"},"type":"json_schema"}}`
	if got := jsonOf(t, f.Body(0)["output_config"]); got != want {
		t.Fatalf("output_config = %s, want %s", got, want)
	}
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{Output: &model.Output{Mode: model.OutputTool, Name: "final_result", Schema: schema}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Body(1)["output_config"]; ok {
		t.Fatal("tool mode sent output_config")
	}
}

// A history of a system prompt alone fails before any request (the
// fake has nothing scripted); the histories no provider can map are the
// conformance suite's History/BadHistory.
func TestSystemPromptAloneFails(t *testing.T) {
	_, err := newFake(t).model(0).Request(context.Background(), []model.Message{model.Request(model.SystemPrompt("only a system prompt"))}, model.Params{})
	if !errors.Is(err, model.ErrModel) {
		t.Errorf("err = %v", err)
	}
}

// TestExtraBodyKeys: extra body keys are top-level keys, dots included, and
// replace the provider's own fields.
func TestExtraBodyKeys(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	params := model.Params{Settings: model.Settings{ExtraBody: map[string]any{"x.y": 1, "max_tokens": 99, "service_tier": "auto"}}}
	if _, err := f.model(0).Request(context.Background(), ask("Hi"), params); err != nil {
		t.Fatal(err)
	}
	b := f.Body(0)
	if b["x.y"] != float64(1) || b["max_tokens"] != float64(99) || b["service_tier"] != "auto" {
		t.Fatalf("body = %s", jsonOf(t, b))
	}
}
