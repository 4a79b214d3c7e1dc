package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/tool"
)

func weatherTool() tool.Definition {
	return tool.Definition{
		Name:        "get_weather",
		Description: "Get the current weather in a given city",
		Parameters: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"city": map[string]any{"type": "string"}},
			"required":             []any{"city"},
			"additionalProperties": false,
		},
	}
}

// TestToolRoundTrip sends the calls of one response back with their
// returns: the model turn carries the calls (without the ids made for
// them, with the thought signature on the part it came on), and the next
// user turn the functionResponses (by name, in order) before the text.
func TestToolRoundTrip(t *testing.T) {
	f := newFake(t, reply{file: "function_calls_parallel.json"}, reply{file: "text.json"})
	m := f.model(0)
	history := ask("Weather in Paris and London?")
	first, err := m.Request(context.Background(), history, model.Params{Tools: []tool.Definition{weatherTool()}})
	if err != nil {
		t.Fatal(err)
	}
	calls := first.ToolCalls()
	history = append(history, first, model.Request(
		model.ToolReturn(tool.Return{ToolCallID: calls[0].ID, Name: "get_weather", Content: map[string]any{"temp_c": 18}}),
		model.ToolReturn(tool.Return{ToolCallID: calls[1].ID, Name: "get_weather", Content: "no such city", IsError: true}),
	), model.Request(model.UserPrompt("And tomorrow?")))
	if _, err := m.Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	contents := f.Body(1)["contents"].([]any)
	if len(contents) != 3 {
		t.Fatalf("contents = %s", jsonOf(t, contents))
	}
	wantModel := `{"parts":[` +
		`{"functionCall":{"args":{"city":"Paris"},"name":"get_weather"},"thoughtSignature":"c2lnLWNhbGwtMQ=="},` +
		`{"functionCall":{"args":{"city":"London"},"name":"get_weather"}}],"role":"model"}`
	if got := jsonOf(t, contents[1]); got != wantModel {
		t.Fatalf("model turn = %s\nwant         %s", got, wantModel)
	}
	wantUser := `{"parts":[` +
		`{"functionResponse":{"name":"get_weather","response":{"output":{"temp_c":18}}}},` +
		`{"functionResponse":{"name":"get_weather","response":{"error":"no such city"}}},` +
		`{"text":"And tomorrow?"}],"role":"user"}`
	if got := jsonOf(t, contents[2]); got != wantUser {
		t.Fatalf("user turn = %s\nwant        %s", got, wantUser)
	}
	wantTools := `[{"functionDeclarations":[{"description":"Get the current weather in a given city","name":"get_weather",` +
		`"parametersJsonSchema":{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}}]}]`
	if got := jsonOf(t, f.Body(0)["tools"]); got != wantTools {
		t.Fatalf("tools = %s\nwant    %s", got, wantTools)
	}
}

// Ids Gemini gave go back on the call and its response.
func TestGivenIDsGoBack(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	history := append(ask("Weather?"),
		model.Response(model.ToolCallPart("fc-123", "get_weather", json.RawMessage(`{"city":"Paris"}`))),
		model.Request(model.ToolReturn(tool.Return{ToolCallID: "fc-123", Name: "get_weather", Content: "sunny"})))
	if _, err := f.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	contents := f.Body(0)["contents"].([]any)
	want := `[{"parts":[{"text":"Weather?"}],"role":"user"},` +
		`{"parts":[{"functionCall":{"args":{"city":"Paris"},"id":"fc-123","name":"get_weather"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"id":"fc-123","name":"get_weather","response":{"output":"sunny"}}}],"role":"user"}]`
	if got := jsonOf(t, contents); got != want {
		t.Fatalf("contents = %s\nwant       %s", got, want)
	}
}

// A retry prompt for a call answers it with response.error under the
// call's tool name; one that names no call is user text.
func TestRetryPromptMapping(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	history := append(ask("Weather?"),
		model.Response(model.ToolCallPart("fc-1", "get_weather", json.RawMessage(`{"town":"Paris"}`))),
		model.Request(model.RetryPrompt("city is required", "fc-1"), model.RetryPrompt("Answer in French.", "")))
	if _, err := f.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	contents := f.Body(0)["contents"].([]any)
	want := `{"parts":[{"functionResponse":{"id":"fc-1","name":"get_weather","response":{"error":"city is required"}}},{"text":"Answer in French."}],"role":"user"}`
	if got := jsonOf(t, contents[2]); got != want {
		t.Fatalf("retry = %s\nwant    %s", got, want)
	}
}

// Thought signatures go back only to Gemini, on the part they came on: a
// signed thought as a thought part, a signature alone on the next part or,
// at the end of a response, on its last part; another provider's thinking
// is dropped.
func TestThinkingRoundTrip(t *testing.T) {
	f := newFake(t, reply{file: "thinking.json"}, reply{file: "text.json"})
	m := f.modelWith(0, google.Options{IncludeThoughts: true, ThinkingBudget: 1024})
	history := ask("Number?")
	first, err := m.Request(context.Background(), history, model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, first,
		model.Request(model.UserPrompt("Why?")),
		model.Response(
			model.ThinkingPart("signed thought", model.Thinking{Provider: "google", Signature: "c2lnLXRoLTE="}),
			model.ThinkingPart("other", model.Thinking{Provider: "anthropic", Signature: "sig-a"}),
			model.TextPart("Because."),
			model.ThinkingPart("", model.Thinking{Provider: "google", Signature: "c2lnLWVuZA=="})),
		model.Request(model.UserPrompt("Ok")))
	if _, err := m.Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	b := f.Body(1)
	contents := b["contents"].([]any)
	if got, want := jsonOf(t, contents[1]), `{"parts":[{"text":"42","thoughtSignature":"c2lnLXRleHQ="}],"role":"model"}`; got != want {
		t.Fatalf("first model turn = %s\nwant %s", got, want)
	}
	want := `{"parts":[{"text":"signed thought","thought":true,"thoughtSignature":"c2lnLXRoLTE="},{"text":"Because.","thoughtSignature":"c2lnLWVuZA=="}],"role":"model"}`
	if got := jsonOf(t, contents[3]); got != want {
		t.Fatalf("second model turn = %s\nwant %s", got, want)
	}
	if got := jsonOf(t, b["generationConfig"].(map[string]any)["thinkingConfig"]); got != `{"includeThoughts":true,"thinkingBudget":1024}` {
		t.Fatalf("thinkingConfig = %s", got)
	}
}

func TestSystemInstructionAndInstructions(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	msg := model.Request(model.SystemPrompt("Be brief."), model.UserPrompt("Hi"))
	msg.Instructions = "Answer in French."
	if _, err := f.model(0).Request(context.Background(), []model.Message{msg}, model.Params{}); err != nil {
		t.Fatal(err)
	}
	want := `{"parts":[{"text":"Be brief."},{"text":"Answer in French."}],"role":"user"}`
	if got := jsonOf(t, f.Body(0)["systemInstruction"]); got != want {
		t.Fatalf("systemInstruction = %s", got)
	}
}

func TestSettingsOnTheWire(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	temp, topP, maxTok, seed, par := 0.5, 0.875, 512, int64(7), false
	params := model.Params{
		Tools: []tool.Definition{weatherTool()},
		Settings: model.Settings{
			Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, Seed: &seed,
			Stop: []string{"END"}, ParallelToolCalls: &par, ToolChoice: "required",
			ExtraHeaders: map[string]string{"x-goog-request-tag": "t-1"},
			ExtraBody:    map[string]any{"generationConfig": map[string]any{"topK": 3}, "labels": map[string]any{"team": "a"}},
		},
	}
	if _, err := f.model(0).Request(context.Background(), ask("Hi"), params); err != nil {
		t.Fatal(err)
	}
	b := f.Body(0)
	want := `{"maxOutputTokens":512,"seed":7,"stopSequences":["END"],"temperature":0.5,"topK":3,"topP":0.875}`
	if got := jsonOf(t, b["generationConfig"]); got != want {
		t.Errorf("generationConfig = %s\nwant %s", got, want)
	}
	if got := jsonOf(t, b["toolConfig"]); got != `{"functionCallingConfig":{"mode":"ANY"}}` {
		t.Errorf("toolConfig = %s", got)
	}
	if got := jsonOf(t, b["labels"]); got != `{"team":"a"}` {
		t.Errorf("labels = %s", got)
	}
	if h := f.Request(0).Header.Get("X-Goog-Request-Tag"); h != "t-1" {
		t.Errorf("extra header = %q", h)
	}
}

func TestToolChoice(t *testing.T) {
	for _, tc := range []struct{ choice, want string }{
		{"", `null`},
		{"auto", `{"functionCallingConfig":{"mode":"AUTO"}}`},
		{"none", `{"functionCallingConfig":{"mode":"NONE"}}`},
		{"required", `{"functionCallingConfig":{"mode":"ANY"}}`},
		{"get_weather", `{"functionCallingConfig":{"allowedFunctionNames":["get_weather"],"mode":"ANY"}}`},
	} {
		f := newFake(t, reply{file: "text.json"})
		params := model.Params{Tools: []tool.Definition{weatherTool()}, Settings: model.Settings{ToolChoice: tc.choice}}
		if _, err := f.model(0).Request(context.Background(), ask("Hi"), params); err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, f.Body(0)["toolConfig"]); got != tc.want {
			t.Errorf("tool choice %q = %s, want %s", tc.choice, got, tc.want)
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
	want := `{"responseJsonSchema":{"properties":{"city":{"type":"string"}},"type":"object"},"responseMimeType":"application/json"}`
	if got := jsonOf(t, f.Body(0)["generationConfig"]); got != want {
		t.Fatalf("generationConfig = %s, want %s", got, want)
	}
	if _, err := m.Request(context.Background(), ask("Hi"), model.Params{Output: &model.Output{Mode: model.OutputTool, Name: "final_result", Schema: schema}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Body(1)["generationConfig"]; ok {
		t.Fatalf("tool mode sent a generationConfig: %s", jsonOf(t, f.Body(1)))
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

// A response that sends nothing back (a refusal) leaves the turns around it
// one user turn: Gemini wants user and model turns to alternate.
func TestEmptyResponseTurnMerges(t *testing.T) {
	f := newFake(t, reply{file: "text.json"})
	history := append(ask("First?"), model.Response(model.RefusalPart("blocked")), model.Request(model.UserPrompt("Second?")))
	if _, err := f.model(0).Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	want := `[{"parts":[{"text":"First?"},{"text":"Second?"}],"role":"user"}]`
	if got := jsonOf(t, f.Body(0)["contents"]); got != want {
		t.Fatalf("contents = %s", got)
	}
}
