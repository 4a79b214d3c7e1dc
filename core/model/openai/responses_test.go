package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestResponsesText(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "gpt-4.1", Options{}))
	req := model.Request(model.SystemPrompt("You are terse."), model.Instruction("Be kind."), model.UserPrompt("Tell me a story."))
	req.Instructions = "Answer in English."
	got, err := m.Request(context.Background(), []model.Message{req}, model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Text(), "In a peaceful grove") || got.FinishReason != model.FinishStop ||
		got.ResponseID != "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b" || got.ModelName != "gpt-4.1-2025-04-14" || got.Provider != "openai" {
		t.Fatalf("response: %+v", got)
	}
	jsonEq(t, got.Usage, `{"requests":1,"input_tokens":36,"output_tokens":87,"tool_calls":0}`)
	r := srv.last(t)
	if r.path != "/responses" {
		t.Fatalf("path %s", r.path)
	}
	jsonEq(t, r.body, `{"model":"gpt-4.1","instructions":"Answer in English.","include":["reasoning.encrypted_content"],"input":[
		{"role":"system","content":"You are terse."},
		{"role":"developer","content":"Be kind."},
		{"role":"user","content":"Tell me a story."}]}`)
}

// Reasoning items come back as thinking parts with their id and encrypted
// content, and go back as reasoning items to the provider that made them
// only; function calls and their outputs are linked by call id.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	srv := newServer(t, ok(t, "responses_reasoning_tools.json"), ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "o4-mini", Options{}))
	ctx := context.Background()
	tools := []tool.Definition{weatherTool(true)}
	history := []model.Message{model.Request(model.UserPrompt("Weather in Boston and Paris?"))}
	resp, err := m.Request(ctx, history, model.Params{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, resp, `{"kind":"response","parts":[
		{"kind":"thinking","text":"**Checking the weather**\n\nThe user wants the weather in two cities; I will call the tool for both.","provider":"openai",
		 "id":"rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7","encrypted":"gAAAAABoISQ24OyVRYbkYfukNAPOoLHyN2yBGXjYJSgo6mnOBqJwtQqmqrIwUUyGTkNfp-encrypted-opaque"},
		{"kind":"tool_call","id":"call_unLAR8MvFNptuiZK6K6HCy5k","name":"get_current_weather","arguments":{"location":"Boston, MA","unit":"celsius"}},
		{"kind":"tool_call","id":"call_9xK2nQ","name":"get_current_weather","arguments":{"location":"Paris, France"}}],
		"usage":{"requests":1,"input_tokens":2291,"output_tokens":336,"tool_calls":0,"cache_read_tokens":2048,"reasoning_tokens":256},
		"model_name":"o4-mini-2025-04-16","finish_reason":"tool_calls","provider":"openai","response_id":"resp_reasoning_tools_1"}`)
	foreign := model.Response(model.ThinkingPart("someone else's", model.Thinking{Provider: "anthropic", Signature: "sig"}), model.TextPart("earlier"))
	history = []model.Message{history[0], foreign, resp, model.Request(
		model.ToolReturn(tool.Return{ToolCallID: "call_unLAR8MvFNptuiZK6K6HCy5k", Name: "get_current_weather", Content: map[string]any{"temp": 3}}),
		model.ToolReturn(tool.Return{ToolCallID: "call_9xK2nQ", Name: "get_current_weather", Content: map[string]any{"kind": "timeout", "success": false}, IsError: true}),
		model.RetryPrompt("Be brief.", ""),
	)}
	if _, err := m.Request(ctx, history, model.Params{Tools: tools}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["input"], `[
		{"role":"user","content":"Weather in Boston and Paris?"},
		{"role":"assistant","content":"earlier"},
		{"type":"reasoning","id":"rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7",
		 "summary":[{"type":"summary_text","text":"**Checking the weather**\n\nThe user wants the weather in two cities; I will call the tool for both."}],
		 "encrypted_content":"gAAAAABoISQ24OyVRYbkYfukNAPOoLHyN2yBGXjYJSgo6mnOBqJwtQqmqrIwUUyGTkNfp-encrypted-opaque"},
		{"type":"function_call","call_id":"call_unLAR8MvFNptuiZK6K6HCy5k","name":"get_current_weather","arguments":"{\"location\":\"Boston, MA\",\"unit\":\"celsius\"}"},
		{"type":"function_call","call_id":"call_9xK2nQ","name":"get_current_weather","arguments":"{\"location\":\"Paris, France\"}"},
		{"type":"function_call_output","call_id":"call_unLAR8MvFNptuiZK6K6HCy5k","output":"{\"temp\":3}"},
		{"type":"function_call_output","call_id":"call_9xK2nQ","output":"{\"kind\":\"timeout\",\"success\":false}"},
		{"role":"user","content":"Be brief."}]`)
	jsonEq(t, srv.last(t).body["tools"], `[{"type":"function","name":"get_current_weather","description":"Get the current weather in a given location","strict":true,
		"parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":["string","null"],"enum":["celsius","fahrenheit",null]}},
		"required":["location","unit"],"additionalProperties":false}}]`)
}

func TestResponsesRefusal(t *testing.T) {
	srv := newServer(t, ok(t, "responses_refusal.json"))
	got, err := must(NewResponses(srv.client(), "gpt-4o", Options{})).Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Parts) != 1 || got.Parts[0].Kind != model.KindRefusal || got.Parts[0].Text != "I'm sorry, I cannot assist with that request." || got.FinishReason != model.FinishContentFilter {
		t.Fatalf("response: %+v", got)
	}
}

func TestResponsesSettingsOnTheWire(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "gpt-4.1", Options{}))
	temp, topP, maxTok, par := 0.5, 0.8, 100, true
	out := &model.Output{Mode: model.OutputNative, Name: "story", Schema: map[string]any{
		"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string", "minLength": 3}}, "required": []any{"title"},
	}}
	s := model.Settings{Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, ParallelToolCalls: &par, ToolChoice: "required", ExtraBody: map[string]any{"store": false}}
	if _, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}, Settings: s, Output: out}); err != nil {
		t.Fatal(err)
	}
	b := srv.last(t).body
	delete(b, "input")
	jsonEq(t, b, `{"model":"gpt-4.1","instructions":"Answer in English.","include":["reasoning.encrypted_content"],
		"temperature":0.5,"top_p":0.8,"max_output_tokens":100,"parallel_tool_calls":true,"tool_choice":"required","store":false,
		"tools":[{"type":"function","name":"get_current_weather","description":"Get the current weather in a given location","strict":false,
		  "parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}}],
		"text":{"format":{"type":"json_schema","name":"story","strict":true,
		  "schema":{"type":"object","properties":{"title":{"type":"string","description":"(minLength: 3)"}},"required":["title"],"additionalProperties":false}}}}`)
	s = model.Settings{ToolChoice: "get_current_weather"}
	if _, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}, Settings: s}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["tool_choice"], `{"type":"function","name":"get_current_weather"}`)
	// The Responses API has neither stop nor seed: an error, not a silent drop.
	seed := int64(1)
	for _, s := range []model.Settings{{Stop: []string{"x"}}, {Seed: &seed}} {
		if _, err := m.Request(context.Background(), hello(), model.Params{Settings: s}); !errors.Is(err, model.ErrModel) {
			t.Errorf("%+v: err = %v", s, err)
		}
	}
}

func TestResponsesStreamAssemblesSplitArguments(t *testing.T) {
	srv := newServer(t, sse(t, "responses_stream_tool_calls.sse"))
	m := must(NewResponses(srv.client(), "gpt-4.1", Options{Streaming: true}))
	got, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, got, `{"kind":"response","parts":[
		{"kind":"tool_call","id":"call_s1","name":"get_current_weather","arguments":{"location":"Boston, MA"}},
		{"kind":"tool_call","id":"call_s2","name":"get_time","arguments":{"timezone":"UTC"}}],
		"usage":{"requests":1,"input_tokens":37,"output_tokens":30,"tool_calls":0},
		"model_name":"gpt-4.1-2025-04-14","finish_reason":"tool_calls","provider":"openai","response_id":"resp_stream_1"}`)
	if srv.last(t).body["stream"] != true {
		t.Error("stream not requested")
	}
}

func TestResponsesStreamDisconnect(t *testing.T) {
	full := fixture(t, "responses_stream_tool_calls.sse")
	partial := full[:strings.Index(full, "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":6")]
	for name, r := range map[string]reply{
		"dropped mid-body":        {body: partial, sse: true, cut: true},
		"closed before completed": {body: partial, sse: true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, r)
			_, err := must(NewResponses(srv.client(), "gpt-4.1", Options{Streaming: true})).Request(context.Background(), hello(), model.Params{})
			var pe *model.ProviderError
			if !errors.As(err, &pe) || pe.Code != "stream_incomplete" {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestResponsesStreamErrorEvent(t *testing.T) {
	body := "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":{\"id\":\"resp_f\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed.\"},\"output\":[]}}\n\n"
	srv := newServer(t, reply{body: body, sse: true})
	_, err := must(NewResponses(srv.client(), "gpt-4.1", Options{Streaming: true})).Request(context.Background(), hello(), model.Params{})
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Code != "server_error" || pe.Message != "The model failed." {
		t.Fatalf("err = %v", err)
	}
}

func TestResponsesIncompleteIsLength(t *testing.T) {
	body := strings.Replace(fixture(t, "responses_text.json"), `"status": "completed",
  "error": null,
  "incomplete_details": null,`, `"status": "incomplete",
  "error": null,
  "incomplete_details": {"reason": "max_output_tokens"},`, 1)
	srv := newServer(t, reply{body: body})
	got, err := must(NewResponses(srv.client(), "gpt-4.1", Options{})).Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.FinishReason != model.FinishLength {
		t.Fatalf("finish %q", got.FinishReason)
	}
}

func TestMalformedResponseBodyIsAnError(t *testing.T) {
	for _, m := range []func(*fakeServer) model.Model{
		func(s *fakeServer) model.Model { return must(New(s.client(), "x", Options{})) },
		func(s *fakeServer) model.Model { return must(NewResponses(s.client(), "x", Options{})) },
	} {
		srv := newServer(t, reply{body: `{"id": "chatcmpl-1", "choices": [`})
		_, err := m(srv).Request(context.Background(), hello(), model.Params{})
		if !errors.Is(err, model.ErrModel) {
			t.Fatalf("err = %v", err)
		}
	}
}
