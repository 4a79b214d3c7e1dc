package anthropic_test

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func ExampleNewFromConfig() {
	srv := modeltest.ServeFile("testdata/text.json") // stands in for api.anthropic.com
	defer srv.Close()

	m, err := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{
		APIKey:  "sk-ant-...", // or leave empty to read ANTHROPIC_API_KEY
		BaseURL: srv.URL,      // or leave empty for ANTHROPIC_BASE_URL, then the default
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(),
		[]model.Message{model.Request(model.SystemPrompt("Be brief."), model.UserPrompt("Who are you?"))},
		model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	fmt.Println(resp.FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// Hi! My name is Claude.
	// stop 2095 503
}

func ExampleNew() {
	srv := modeltest.ServeFile("testdata/stream_tool_use.sse")
	defer srv.Close()

	// The caller owns the client: auth, base URL, retries, HTTP.
	client := sdk.NewClient(option.WithAPIKey("sk-ant-..."), option.WithBaseURL(srv.URL), option.WithMaxRetries(4))
	m, err := anthropic.New(client, "claude-sonnet-4-5",
		anthropic.Options{Streaming: true, ThinkingBudget: 2048, MaxTokens: 8192})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(),
		[]model.Message{model.Request(model.UserPrompt("Weather in San Francisco?"))},
		model.Params{Tools: nil})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range resp.ToolCalls() {
		fmt.Println(c.Name, string(c.Arguments))
	}
	fmt.Println(resp.FinishReason)
	// Output:
	// get_weather {"location": "San Francisco, CA", "unit": "fahrenheit"}
	// tool_calls
}

func ExampleErrMissingAPIKey() {
	defer modeltest.RestoreEnv("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")()
	os.Unsetenv("ANTHROPIC_API_KEY")
	os.Unsetenv("ANTHROPIC_BASE_URL")
	m, err := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{}) // a missing key is not a building error
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	fmt.Println(err)
	// Output:
	// model: request failed: anthropic: no API key: set the ANTHROPIC_API_KEY environment variable or pass an API key
}

// Stream reports the response while it arrives; each tool call is done
// (its arguments whole) before the response ends, so it can start early.
func ExampleModel_Stream() {
	srv := modeltest.ServeFile("testdata/stream_tool_use_parallel.sse")
	defer srv.Close()

	m, err := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{APIKey: "sk-ant-...", BaseURL: srv.URL}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Stream(context.Background(),
		[]model.Message{model.Request(model.UserPrompt("Weather and time in San Francisco?"))},
		model.Params{},
		func(d model.Delta) {
			switch d.Kind {
			case model.DeltaText:
				fmt.Printf("text %q\n", d.Text)
			case model.DeltaToolCallDone:
				fmt.Println("call", d.Index, d.Call.Name, string(d.Call.Arguments))
			}
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.FinishReason, len(resp.ToolCalls()))
	// Output:
	// text "I'll check the weather "
	// text "and the time in San Francisco."
	// call 0 get_weather {"location": "San Francisco, CA"}
	// call 1 get_time {"timezone": "America/Los_Angeles"}
	// tool_calls 2
}
