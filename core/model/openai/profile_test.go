package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Ollama's OpenAI-compatible answers as some versions and other local
// servers send them: the arguments as a JSON object, no usage at all.
const (
	objectArgsChat = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"llama3.2","choices":[{"index":0,
		"message":{"role":"assistant","content":"","tool_calls":[
			{"id":"call_a","type":"function","function":{"name":"get_current_weather","arguments":{"location":"Paris"}}},
			{"id":"call_b","type":"function","function":{"name":"get_current_weather","arguments":{"location":"Rome","unit":"celsius"}}}]},
		"finish_reason":"tool_calls"}]}`
	objectArgsStream = `data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"llama3.2","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me look."},"finish_reason":null}]}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"llama3.2","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_current_weather","arguments":{"location":"Paris"}}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"llama3.2","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_current_weather","arguments":{"location":"Rome","unit":"celsius"}}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"llama3.2","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]}

data: [DONE]

`
)

func ollama(t *testing.T) Profile {
	t.Helper()
	p, err := ProfileNamed(ProfileOllama)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// strictParams asks for what OpenAI gets strict: a strict tool, parallel
// calls off.
func strictParams() model.Params {
	off := false
	return model.Params{Tools: []tool.Definition{weatherTool(true)}, Settings: model.Settings{ParallelToolCalls: &off}}
}

func checkObjectArgs(t *testing.T, got model.Message) {
	t.Helper()
	calls := got.ToolCalls()
	if len(calls) != 2 || string(calls[0].Arguments) != `{"location":"Paris"}` || string(calls[1].Arguments) != `{"location":"Rome","unit":"celsius"}` {
		t.Fatalf("calls: %s", jsonOf(t, calls))
	}
	if got.Provider != "ollama" || got.ModelName != "llama3.2" || got.FinishReason != model.FinishToolCalls {
		t.Fatalf("metadata: %+v", got)
	}
	// No usage in the answer: zero tokens, one request, no error.
	jsonEq(t, got.Usage, `{"requests":1,"input_tokens":0,"output_tokens":0,"tool_calls":0}`)
}

// The Ollama profile sends no strict and no parallel_tool_calls, finds
// the server at its bare host plus /v1 without sending OpenAI's key, and
// reads arguments sent as objects and an answer without usage.
func TestOllamaProfileWhole(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OLLAMA_API_KEY", "")
	srv := newServer(t, reply{body: objectArgsChat})
	t.Setenv("OLLAMA_BASE_URL", strings.TrimPrefix(srv.URL, "http://")) // as OLLAMA_HOST is written
	m := must(NewChatFromConfig("llama3.2", Options{Profile: ollama(t)}))
	got, err := m.Request(context.Background(), hello(), strictParams())
	if err != nil {
		t.Fatal(err)
	}
	checkObjectArgs(t, got)
	req := srv.last(t)
	if req.path != "/v1/chat/completions" {
		t.Errorf("path %s", req.path)
	}
	if a := req.header.Get("Authorization"); a != "" {
		t.Errorf("OpenAI's key went to Ollama: %q", a)
	}
	if _, ok := req.body["parallel_tool_calls"]; ok {
		t.Error("parallel_tool_calls sent")
	}
	// The tool's own schema, without strict and without the strict
	// conversion (optional unit stays optional, not nullable).
	jsonEq(t, req.body["tools"], `[{"type":"function","function":{"name":"get_current_weather","description":"Get the current weather in a given location",
		"parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}}}]`)

	// A history with those calls goes back with the arguments as strings,
	// as the API documents them.
	history := append(hello(), got, model.Request(model.ToolReturn(tool.Return{ToolCallID: "call_a", Name: "get_current_weather", Content: "sunny"})))
	if _, err := m.Request(context.Background(), history, strictParams()); err != nil {
		t.Fatal(err)
	}
	msgs := srv.last(t).body["messages"].([]any)
	args := msgs[3].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"]
	if args != `{"location":"Paris"}` {
		t.Errorf("arguments sent back as %#v", args)
	}
}

// Streamed, each call arrives whole, as an object, in one chunk: it is
// done as soon as the next starts, and the message equals the whole one.
func TestOllamaProfileStreamed(t *testing.T) {
	srv := newServer(t, reply{body: objectArgsStream, sse: true})
	m := must(NewChatFromConfig("llama3.2", Options{Profile: ollama(t), Config: Config{BaseURL: srv.URL + "/v1"}}))
	var ds []model.Delta
	got, err := m.Stream(context.Background(), hello(), strictParams(), modeltest.Collect(&ds))
	if err != nil {
		t.Fatal(err)
	}
	checkObjectArgs(t, got)
	if got.Text() != "Let me look." {
		t.Errorf("text %q", got.Text())
	}
	wantDeltas(t, ds, `{"kind":"text","text":"Let me look."}
{"kind":"tool_call_start","tool_call":{"id":"call_a","name":"get_current_weather","arguments":null}}
{"kind":"tool_call_arguments","text":"{\"location\":\"Paris\"}"}
{"kind":"tool_call_done","tool_call":{"id":"call_a","name":"get_current_weather","arguments":{"location":"Paris"}}}
{"kind":"tool_call_start","index":1,"tool_call":{"id":"call_b","name":"get_current_weather","arguments":null}}
{"kind":"tool_call_arguments","index":1,"text":"{\"location\":\"Rome\",\"unit\":\"celsius\"}"}
{"kind":"tool_call_done","index":1,"tool_call":{"id":"call_b","name":"get_current_weather","arguments":{"location":"Rome","unit":"celsius"}}}
`)
	body := srv.last(t).body
	if _, ok := body["parallel_tool_calls"]; ok {
		t.Error("parallel_tool_calls sent")
	}
	// Ollama takes stream_options; a profile saying the server does not
	// gets none.
	if body["stream_options"] == nil {
		t.Error("stream_options not sent to Ollama")
	}
	p := ollama(t)
	p.NoStreamUsage = true
	m = must(NewChatFromConfig("llama3.2", Options{Profile: p, Config: Config{BaseURL: srv.URL + "/v1"}}))
	if _, err := m.Stream(context.Background(), hello(), strictParams(), modeltest.Collect(&ds)); err != nil {
		t.Fatal(err)
	}
	if body := srv.last(t).body; body["stream"] != true || body["stream_options"] != nil {
		t.Errorf("stream %v, stream_options %v", body["stream"], body["stream_options"])
	}
}

// A native output goes to a server without strict as the schema itself,
// and the answer is kept as the model wrote it (no nulls were forced in).
func TestNoStrictNativeOutput(t *testing.T) {
	srv := newServer(t, reply{body: strings.Replace(fixture(t, "chat_text.json"), `"Hello! How can I assist you today?"`, `"{\"city\":\"Paris\",\"country\":null}"`, 1)})
	m := must(New(srv.client(), "qwen3", Options{Profile: Profile{NoStrict: true}}))
	out := &model.Output{Mode: model.OutputNative, Name: "where", Schema: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"},
	}}
	got, err := m.Request(context.Background(), hello(), model.Params{Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != `{"city":"Paris","country":null}` {
		t.Errorf("text %s", got.Text())
	}
	jsonEq(t, srv.last(t).body["response_format"], `{"type":"json_schema","json_schema":{"name":"where",
		"schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`)
}

// The Responses model of a server without the developer role sends
// instructions as system, and its tools non-strict.
func TestProfileResponsesRolesAndStrict(t *testing.T) {
	srv := newServer(t, ok(t, "responses_text.json"))
	m := must(NewResponses(srv.client(), "gpt-oss", Options{Profile: Profile{NoDeveloperRole: true, NoStrict: true, NoParallelToolCalls: true}}))
	if _, err := m.Request(context.Background(), hello(), strictParams()); err != nil {
		t.Fatal(err)
	}
	body := srv.last(t).body
	for _, it := range body["input"].([]any) {
		if r := it.(map[string]any)["role"]; r == "developer" {
			t.Errorf("developer role sent: %v", body["input"])
		}
	}
	if _, ok := body["parallel_tool_calls"]; ok {
		t.Error("parallel_tool_calls sent")
	}
	if tl := body["tools"].([]any)[0].(map[string]any); tl["strict"] != false {
		t.Errorf("tool %v", tl)
	}
}

// Each profile's base URL: its variable, its default, a bare host
// completed, the profiles without a default refusing to guess.
func TestProfileBaseURLs(t *testing.T) {
	for _, v := range []string{"OLLAMA_BASE_URL", "VLLM_BASE_URL", "OPENAI_BASE_URL"} {
		t.Setenv(v, "")
	}
	base := func(name, configured string) (string, error) {
		p, err := ProfileNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		return p.baseURL(configured)
	}
	for _, c := range []struct{ profile, env, value, configured, want string }{
		{"ollama", "", "", "", "http://localhost:11434/v1"},
		{"ollama", "OLLAMA_BASE_URL", "http://gpu-box:11434", "", "http://gpu-box:11434/v1"},
		{"ollama", "OLLAMA_BASE_URL", "gpu-box:11434/", "", "http://gpu-box:11434/v1"},
		{"ollama", "OLLAMA_BASE_URL", "https://proxy.example/ollama/v1", "", "https://proxy.example/ollama/v1"},
		{"ollama", "OLLAMA_BASE_URL", "http://ignored:1", "http://mine:11434/v1", "http://mine:11434/v1"},
		{"vllm", "VLLM_BASE_URL", "http://vllm:8000/v1", "", "http://vllm:8000/v1"},
		{"openai-compatible", "OPENAI_BASE_URL", "http://litellm:4000", "", "http://litellm:4000"},
		{"openai", "", "", "", ""},
	} {
		if c.env != "" {
			t.Setenv(c.env, c.value)
		}
		got, err := base(c.profile, c.configured)
		if err != nil || got != c.want {
			t.Errorf("%s %s=%q: %q, %v; want %q", c.profile, c.env, c.value, got, err, c.want)
		}
		if c.env != "" {
			t.Setenv(c.env, "")
		}
	}
	for name, env := range map[string]string{"vllm": "VLLM_BASE_URL", "openai-compatible": "OPENAI_BASE_URL"} {
		p, _ := ProfileNamed(name)
		_, err := NewChatFromConfig("m", Options{Profile: p})
		if err == nil || !strings.Contains(err.Error(), env) || !strings.HasPrefix(err.Error(), "openai: ") {
			t.Errorf("%s without a base URL: %v", name, err)
		}
	}
	if _, err := ProfileNamed("lmstudio"); err == nil {
		t.Error("unknown profile accepted")
	}
}

// A vLLM server started with --api-key gets VLLM_API_KEY, never
// OPENAI_API_KEY; a 401 names the variable to set.
func TestProfileKeys(t *testing.T) {
	srv := newServer(t, reply{body: objectArgsChat}, reply{status: 401, body: fixture(t, "error_401.json")})
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("VLLM_API_KEY", "vllm-secret-key")
	t.Setenv("VLLM_BASE_URL", srv.URL)
	p, _ := ProfileNamed(ProfileVLLM)
	if _, err := must(NewChatFromConfig("qwen", Options{Profile: p})).Request(context.Background(), hello(), model.Params{}); err != nil {
		t.Fatal(err)
	}
	if a := srv.last(t).header.Get("Authorization"); a != "Bearer vllm-secret-key" {
		t.Errorf("Authorization %q", a)
	}
	t.Setenv("VLLM_API_KEY", "")
	_, err := must(NewChatFromConfig("qwen", Options{Profile: p})).Request(context.Background(), hello(), model.Params{})
	if err == nil || !strings.Contains(err.Error(), "VLLM_API_KEY is unset") || !strings.Contains(err.Error(), "vllm") {
		t.Errorf("401: %v", err)
	}
	if a := srv.last(t).header.Get("Authorization"); a != "" {
		t.Errorf("Authorization %q", a)
	}
}

// OpenAI's ambient credentials never reach another server: not the admin
// key (which the SDK would send as the bearer token of a request without
// an API key), nor the organisation, project or custom headers.
func TestProfileAmbientCredentials(t *testing.T) {
	srv := newServer(t, reply{body: objectArgsChat}, reply{body: objectArgsChat})
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin-secret-value")
	t.Setenv("OPENAI_ORG_ID", "org-secret")
	t.Setenv("OPENAI_PROJECT_ID", "proj-secret")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Gateway-Token: gw-secret\nX-Other: other")
	t.Setenv("OLLAMA_BASE_URL", srv.URL)
	if _, err := must(NewChatFromConfig("llama3.2", Options{Profile: ollama(t)})).Request(context.Background(), hello(), model.Params{}); err != nil {
		t.Fatal(err)
	}
	h := srv.last(t).header
	for _, name := range []string{"Authorization", "OpenAI-Organization", "OpenAI-Project", "X-Gateway-Token", "X-Other"} {
		if v := h.Get(name); v != "" {
			t.Errorf("the Ollama server received %s: %q", name, v)
		}
	}
	// OpenAI's own profile keeps the organisation headers, but a request
	// without an API key (a local server) never carries the admin key.
	if _, err := must(NewChatFromConfig("gpt", Options{Config: Config{BaseURL: srv.URL}})).Request(context.Background(), hello(), model.Params{}); err != nil {
		t.Fatal(err)
	}
	h = srv.last(t).header
	if a := h.Get("Authorization"); a != "" {
		t.Errorf("Authorization %q", a)
	}
	if o := h.Get("OpenAI-Organization"); o != "org-secret" {
		t.Errorf("OpenAI-Organization %q", o)
	}
}
