package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func weatherTool(strict bool) tool.Definition {
	d := tool.Definition{
		Name:        "get_current_weather",
		Description: "Get the current weather in a given location",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"location": map[string]any{"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
				"unit":     map[string]any{"type": "string", "enum": []any{"celsius", "fahrenheit"}},
			},
			"required": []any{"location"},
		},
	}
	if strict {
		d.Strict = &strict
	}
	return d
}

func hello() []model.Message {
	req := model.Request(model.SystemPrompt("You are terse."), model.UserPrompt("Hello!"))
	req.Instructions = "Answer in English."
	return []model.Message{req}
}

func TestChatText(t *testing.T) {
	srv := newServer(t, ok(t, "chat_text.json"))
	m := must(New(srv.client(), "gpt-4.1", Options{}))
	got, err := m.Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != model.KindResponse || got.Text() != "Hello! How can I assist you today?" || len(got.Parts) != 1 {
		t.Fatalf("response: %+v", got)
	}
	if got.ModelName != "gpt-4.1-2025-04-14" || got.ResponseID != "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT" || got.Provider != "openai" || got.FinishReason != model.FinishStop {
		t.Fatalf("metadata: %+v", got)
	}
	jsonEq(t, got.Usage, `{"requests":1,"input_tokens":19,"output_tokens":10,"tool_calls":0}`)
	req := srv.last(t)
	if req.path != "/chat/completions" || req.header.Get("Authorization") != "Bearer "+testKey {
		t.Fatalf("request %s %q", req.path, req.header.Get("Authorization"))
	}
	jsonEq(t, req.body, `{"model":"gpt-4.1","messages":[
		{"role":"system","content":"You are terse."},
		{"role":"system","content":"Answer in English."},
		{"role":"user","content":"Hello!"}]}`)
}

func TestChatParallelToolCallsAndUsage(t *testing.T) {
	srv := newServer(t, ok(t, "chat_tool_calls.json"))
	m := must(New(srv.client(), "gpt-4o-mini", Options{}))
	got, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	calls := got.ToolCalls()
	if len(calls) != 3 || got.FinishReason != model.FinishToolCalls {
		t.Fatalf("calls %+v finish %q", calls, got.FinishReason)
	}
	want := []struct{ id, name, args string }{
		{"call_abc123", "get_current_weather", "{\n\"location\": \"Boston, MA\"\n}"},
		{"call_def456", "get_current_weather", `{"location": "Paris, France", "unit": "celsius"}`},
		{"call_ghi789", "get_time", `{"timezone": "Europe/Paris"}`},
	}
	for i, w := range want {
		if calls[i].ID != w.id || calls[i].Name != w.name || string(calls[i].Arguments) != w.args {
			t.Errorf("call %d: %+v, want %+v", i, calls[i], w)
		}
	}
	jsonEq(t, got.Usage, `{"requests":1,"input_tokens":2006,"output_tokens":117,"tool_calls":0,"cache_read_tokens":1920,"reasoning_tokens":64}`)
	jsonEq(t, srv.last(t).body["tools"], `[{"type":"function","function":{"name":"get_current_weather","description":"Get the current weather in a given location",
		"parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}}}]`)
}

// The second request of a tool round trip carries the assistant's calls and
// their results, linked by call id, in the model's order.
func TestChatToolRoundTrip(t *testing.T) {
	srv := newServer(t, ok(t, "chat_tool_calls.json"), ok(t, "chat_text.json"))
	m := must(New(srv.client(), "gpt-4o-mini", Options{}))
	ctx := context.Background()
	history := []model.Message{model.Request(model.UserPrompt("Weather in Boston and Paris? And the time?"))}
	resp, err := m.Request(ctx, history, model.Params{Tools: []tool.Definition{weatherTool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, resp, model.Request(
		model.ToolReturn(tool.Return{ToolCallID: "call_abc123", Name: "get_current_weather", Content: map[string]any{"temp": 22, "unit": "celsius"}}),
		model.ToolReturn(tool.Return{ToolCallID: "call_def456", Name: "get_current_weather", Content: "service down", IsError: true}),
		model.RetryPrompt("unknown timezone; use an IANA name", "call_ghi789"),
		model.RetryPrompt("Please answer in one sentence.", ""),
	))
	if _, err := m.Request(ctx, history, model.Params{Tools: []tool.Definition{weatherTool(false)}}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["messages"], `[
		{"role":"user","content":"Weather in Boston and Paris? And the time?"},
		{"role":"assistant","tool_calls":[
			{"id":"call_abc123","type":"function","function":{"name":"get_current_weather","arguments":"{\n\"location\": \"Boston, MA\"\n}"}},
			{"id":"call_def456","type":"function","function":{"name":"get_current_weather","arguments":"{\"location\": \"Paris, France\", \"unit\": \"celsius\"}"}},
			{"id":"call_ghi789","type":"function","function":{"name":"get_time","arguments":"{\"timezone\": \"Europe/Paris\"}"}}]},
		{"role":"tool","tool_call_id":"call_abc123","content":"{\"temp\":22,\"unit\":\"celsius\"}"},
		{"role":"tool","tool_call_id":"call_def456","content":"Error: service down"},
		{"role":"tool","tool_call_id":"call_ghi789","content":"unknown timezone; use an IANA name"},
		{"role":"user","content":"Please answer in one sentence."}]`)
}

func TestChatSettingsOnTheWire(t *testing.T) {
	srv := newServer(t, ok(t, "chat_text.json"))
	m := must(New(srv.client(), "gpt-4.1", Options{}))
	temp, topP, maxTok, seed, par := 0.2, 0.9, 256, int64(7), false
	s := model.Settings{
		Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, Stop: []string{"END", "STOP"}, Seed: &seed,
		ParallelToolCalls: &par, ToolChoice: "get_current_weather", TimeoutMS: 60_000,
		ExtraHeaders: map[string]string{"X-Trace": "abc"},
		ExtraBody:    map[string]any{"service_tier": "flex", "metadata": map[string]any{"run": "r1"}, "odd.key": true},
	}
	if _, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}, Settings: s}); err != nil {
		t.Fatal(err)
	}
	req := srv.last(t)
	if req.header.Get("X-Trace") != "abc" {
		t.Errorf("extra header missing: %v", req.header)
	}
	b := req.body
	delete(b, "messages")
	delete(b, "tools")
	jsonEq(t, b, `{"model":"gpt-4.1","temperature":0.2,"top_p":0.9,"max_completion_tokens":256,"stop":["END","STOP"],"seed":7,
		"parallel_tool_calls":false,"tool_choice":{"type":"function","function":{"name":"get_current_weather"}},
		"service_tier":"flex","metadata":{"run":"r1"},"odd.key":true}`)
}

func TestChatToolChoiceModes(t *testing.T) {
	for _, mode := range []string{"auto", "none", "required"} {
		srv := newServer(t, ok(t, "chat_text.json"))
		m := must(New(srv.client(), "gpt-4.1", Options{}))
		if _, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}, Settings: model.Settings{ToolChoice: mode}}); err != nil {
			t.Fatal(err)
		}
		if got := srv.last(t).body["tool_choice"]; got != mode {
			t.Errorf("tool_choice %q sent as %v", mode, got)
		}
	}
	// Without tools, tool settings are not sent (OpenAI rejects them).
	srv := newServer(t, ok(t, "chat_text.json"))
	par := true
	if _, err := must(New(srv.client(), "gpt-4.1", Options{})).Request(context.Background(), hello(), model.Params{Settings: model.Settings{ToolChoice: "required", ParallelToolCalls: &par}}); err != nil {
		t.Fatal(err)
	}
	if b := srv.last(t).body; b["tool_choice"] != nil || b["parallel_tool_calls"] != nil {
		t.Errorf("tool settings sent without tools: %v", b)
	}
}

func TestChatStrictToolAndNulls(t *testing.T) {
	srv := newServer(t, ok(t, "chat_tool_calls.json"))
	m := must(New(srv.client(), "gpt-4o-mini", Options{}))
	// The fixture's second call fills the optional unit; a strict model
	// must send every property, so a null would stand for "absent".
	got, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls()) != 3 {
		t.Fatalf("calls: %+v", got.ToolCalls())
	}
	jsonEq(t, srv.last(t).body["tools"], `[{"type":"function","function":{"name":"get_current_weather","description":"Get the current weather in a given location","strict":true,
		"parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":["string","null"],"enum":["celsius","fahrenheit",null]}},
		"required":["location","unit"],"additionalProperties":false}}}]`)
}

func TestChatNativeOutput(t *testing.T) {
	srv := newServer(t, reply{body: strings.Replace(fixture(t, "chat_text.json"), `"Hello! How can I assist you today?"`, `"{\"city\":\"Paris\",\"country\":null}"`, 1)})
	m := must(New(srv.client(), "gpt-4.1", Options{}))
	out := &model.Output{Mode: model.OutputNative, Name: "final result", Description: "Where it is", Schema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}, "country": map[string]any{"type": "string", "default": "France"}},
		"required":   []any{"city"},
	}}
	got, err := m.Request(context.Background(), hello(), model.Params{Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != `{"city":"Paris"}` {
		t.Errorf("the null strict mode forced for the optional country stays: %s", got.Text())
	}
	jsonEq(t, srv.last(t).body["response_format"], `{"type":"json_schema","json_schema":{"name":"final_result","description":"Where it is","strict":true,
		"schema":{"type":"object","properties":{"city":{"type":"string"},"country":{"type":["string","null"]}},"required":["city","country"],"additionalProperties":false}}}`)
	// Tool mode adds nothing: the output tool is among the tools.
	out.Mode = model.OutputTool
	if _, err := m.Request(context.Background(), hello(), model.Params{Output: out}); err != nil {
		t.Fatal(err)
	}
	if rf, ok := srv.last(t).body["response_format"]; ok {
		t.Errorf("tool mode sent a response format: %v", rf)
	}
	out.Mode = "psychic"
	if _, err := m.Request(context.Background(), hello(), model.Params{Output: out}); !errors.Is(err, model.ErrModel) {
		t.Errorf("unknown output mode: %v", err)
	}
}

func TestChatRefusal(t *testing.T) {
	srv := newServer(t, ok(t, "chat_refusal.json"))
	got, err := must(New(srv.client(), "gpt-4o", Options{})).Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Parts) != 1 || got.Parts[0].Kind != model.KindRefusal || got.Parts[0].Text != "I'm sorry, I cannot assist with that request." {
		t.Fatalf("parts: %+v", got.Parts)
	}
	if got.FinishReason != model.FinishContentFilter {
		t.Errorf("finish %q", got.FinishReason)
	}
	// Sent back as the assistant's refusal.
	if _, err := must(New(srv.client(), "gpt-4o", Options{})).Request(context.Background(), append(hello(), got, model.Request(model.UserPrompt("ok"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["messages"].([]any)[3], `{"role":"assistant","refusal":"I'm sorry, I cannot assist with that request."}`)
}

func TestChatReasoningContentOfCompatibleServers(t *testing.T) {
	srv := newServer(t, ok(t, "chat_reasoning_content.json"))
	m := must(New(srv.client(), "deepseek-r1", Options{ProviderName: "vllm"}))
	got, err := m.Request(context.Background(), hello(), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Parts) != 2 || got.Parts[0].Kind != model.KindThinking || got.Parts[0].Text != "The user greets me; answer briefly." ||
		got.Parts[0].Thinking.Provider != "vllm" || got.Parts[1].Text != "Hi there!" || got.Provider != "vllm" {
		t.Fatalf("parts: %+v", got)
	}
	// Chat Completions has no field to send reasoning back: it is dropped.
	if _, err := m.Request(context.Background(), append(hello(), got, model.Request(model.UserPrompt("more"))), model.Params{}); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.last(t).body["messages"].([]any)[3], `{"role":"assistant","content":"Hi there!"}`)
}

// Arguments that are not JSON are kept as a JSON string (history stays
// valid JSON; the runtime answers invalid_arguments) and sent back as the
// model wrote them.
func TestChatMalformedArguments(t *testing.T) {
	srv := newServer(t, ok(t, "chat_malformed_arguments.json"), ok(t, "chat_text.json"))
	m := must(New(srv.client(), "gpt-4o-mini", Options{}))
	got, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	args := got.ToolCalls()[0].Arguments
	var s string
	if err := json.Unmarshal(args, &s); err != nil || s != `{"location": "Boston` {
		t.Fatalf("arguments %s (%v)", args, err)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatalf("history is not valid JSON: %v", err)
	}
	history := append(hello(), got, model.Request(model.RetryPrompt("invalid JSON", "call_bad1")))
	if _, err := m.Request(context.Background(), history, model.Params{}); err != nil {
		t.Fatal(err)
	}
	call := srv.last(t).body["messages"].([]any)[3].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if a := call["function"].(map[string]any)["arguments"]; a != `{"location": "Boston` {
		t.Errorf("sent back as %q", a)
	}
}

func TestChatEmptyResponseIsAnError(t *testing.T) {
	srv := newServer(t, ok(t, "chat_empty.json"))
	_, err := must(New(srv.client(), "gpt-4o-mini", Options{})).Request(context.Background(), hello(), model.Params{})
	if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "empty response") {
		t.Fatalf("err = %v", err)
	}
}

func TestChatUnknownPartKindFails(t *testing.T) {
	srv := newServer(t, ok(t, "chat_text.json"))
	m := must(New(srv.client(), "gpt-4o-mini", Options{}))
	for _, msgs := range [][]model.Message{
		{model.Request(model.Part{Kind: "image"})},
		{model.Request(model.TextPart("a response part in a request"))},
		{model.Request(model.UserPrompt("x")), model.Response(model.Part{Kind: "audio"})},
		{model.Request(model.Part{Kind: model.KindUserPrompt, Content: []model.UserContent{{Kind: "image", Text: "x"}}})},
	} {
		if _, err := m.Request(context.Background(), msgs, model.Params{}); !errors.Is(err, model.ErrModel) {
			t.Errorf("%+v: err = %v", msgs, err)
		}
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestChatStreamAssemblesSplitArguments(t *testing.T) {
	srv := newServer(t, sse(t, "chat_stream_tool_calls.sse"))
	m := must(New(srv.client(), "gpt-4o-mini", Options{Streaming: true}))
	got, err := m.Request(context.Background(), hello(), model.Params{Tools: []tool.Definition{weatherTool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, got, `{"kind":"response","parts":[
		{"kind":"tool_call","id":"call_s1","name":"get_current_weather","arguments":{"location":"Boston, MA"}},
		{"kind":"tool_call","id":"call_s2","name":"get_time","arguments":{"timezone":"UTC"}}],
		"usage":{"requests":1,"input_tokens":82,"output_tokens":40,"tool_calls":0,"cache_read_tokens":64},
		"model_name":"gpt-4o-mini","finish_reason":"tool_calls","provider":"openai","response_id":"chatcmpl-stream1"}`)
	b := srv.last(t).body
	if b["stream"] != true {
		t.Errorf("stream not requested: %v", b)
	}
	jsonEq(t, b["stream_options"], `{"include_usage":true}`)
}

func TestChatStreamDisconnect(t *testing.T) {
	for name, r := range map[string]reply{
		"dropped mid-body":     {body: fixture(t, "chat_stream_disconnect.sse"), sse: true, cut: true},
		"closed before finish": {body: fixture(t, "chat_stream_disconnect.sse"), sse: true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, r)
			_, err := must(New(srv.client(), "gpt-4o-mini", Options{Streaming: true})).Request(context.Background(), hello(), model.Params{})
			var pe *model.ProviderError
			if !errors.As(err, &pe) || pe.Code != "stream_incomplete" || !errors.Is(err, model.ErrModel) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
