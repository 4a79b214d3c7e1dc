package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// A Chat Completions model over an SDK client the caller configured.
func ExampleNew() {
	srv := modeltest.ServeFile("testdata/chat_text.json")
	defer srv.Close()
	client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-example"))
	m, err := openai.New(client, "gpt-4.1", openai.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hello!"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	fmt.Println(resp.FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// Hello! How can I assist you today?
	// stop 19 10
}

// An OpenAI-compatible server (vLLM, llama.cpp, Ollama, LiteLLM) is reached
// through its base URL and needs no key.
func ExampleNewChatFromConfig() {
	srv := modeltest.ServeFile("testdata/chat_text.json")
	defer srv.Close()
	m, err := openai.NewChatFromConfig("llama3.1", openai.Options{
		Config:       openai.Config{BaseURL: srv.URL},
		ProviderName: "ollama",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hello!"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Provider, resp.Text())
	// Output: ollama Hello! How can I assist you today?
}

// The Responses API returns reasoning as thinking parts that are sent back
// on the next request.
func ExampleNewResponses() {
	srv := modeltest.ServeFile("testdata/responses_reasoning_tools.json")
	defer srv.Close()
	client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-example"))
	m, err := openai.NewResponses(client, "o4-mini", openai.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Weather in Boston and Paris?"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range resp.Parts {
		switch p.Kind {
		case model.KindThinking:
			fmt.Println("thinking", p.Thinking.ID)
		case model.KindToolCall:
			fmt.Println("call", p.ToolCall.Name, string(p.ToolCall.Arguments))
		}
	}
	fmt.Println(resp.FinishReason, resp.Usage.CacheReadTokens, resp.Usage.ReasoningTokens)
	// Output:
	// thinking rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7
	// call get_current_weather {"location":"Boston, MA","unit":"celsius"}
	// call get_current_weather {"location":"Paris, France","unit":null}
	// tool_calls 2048 256
}

// A streamed response is assembled into the message a plain request
// returns: here two tool calls whose arguments arrive split across chunks.
func ExampleOptions_streaming() {
	body, _ := os.ReadFile("testdata/chat_stream_tool_calls.sse")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	m, err := openai.NewChatFromConfig("gpt-4o-mini", openai.Options{Config: openai.Config{BaseURL: srv.URL}, Streaming: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Weather and time?"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range resp.ToolCalls() {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	fmt.Println(resp.Usage.InputTokens, resp.Usage.CacheReadTokens)
	// Output:
	// call_s1 get_current_weather {"location": "Boston, MA"}
	// call_s2 get_time {"timezone": "UTC"}
	// 82 64
}

// Stream reports the response while it arrives: here each call is done
// (its arguments whole) as soon as the next one starts, before the
// response ends, so a caller can start it early.
func ExampleChat_Stream() {
	body, _ := os.ReadFile("testdata/chat_stream_parallel.sse")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	m, err := openai.NewChatFromConfig("gpt-4o-mini", openai.Options{Config: openai.Config{BaseURL: srv.URL}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Stream(context.Background(), []model.Message{model.Request(model.UserPrompt("Weather and time?"))}, model.Params{},
		func(d model.Delta) {
			switch d.Kind {
			case model.DeltaToolCallStart:
				fmt.Println("start", d.Index, d.Call.Name)
			case model.DeltaToolCallDone:
				fmt.Println("done", d.Index, d.Call.ID)
			}
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.FinishReason, len(resp.ToolCalls()))
	// Output:
	// start 0 get_current_weather
	// done 0 call_abc123
	// start 1 get_current_weather
	// done 1 call_def456
	// start 2 get_time
	// done 2 call_ghi789
	// tool_calls 3
}

// Ollama by its profile: the server's address (a bare host gets /v1),
// no key, and what it does differently from OpenAI.
func ExampleProfileNamed() {
	srv := modeltest.ServeFile("testdata/chat_text.json")
	defer srv.Close()
	profile, err := openai.ProfileNamed(openai.ProfileOllama)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := openai.NewChatFromConfig("llama3.2", openai.Options{Profile: profile, Config: openai.Config{BaseURL: srv.URL}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hello!"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Provider, resp.Text())
	fmt.Println("strict:", !profile.NoStrict, "parallel_tool_calls:", !profile.NoParallelToolCalls)
	// Output:
	// ollama Hello! How can I assist you today?
	// strict: false parallel_tool_calls: false
}
