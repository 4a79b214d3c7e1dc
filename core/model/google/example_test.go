package google_test

import (
	"context"
	"fmt"
	"os"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/google"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func ExampleNewFromConfig() {
	srv := modeltest.ServeFile("testdata/text.json") // stands in for generativelanguage.googleapis.com
	defer srv.Close()

	m, err := google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{
		APIKey:  "AIza...", // or leave empty to read GOOGLE_API_KEY, then GEMINI_API_KEY
		BaseURL: srv.URL,   // or leave empty for GOOGLE_GEMINI_BASE_URL, then the default
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(),
		[]model.Message{model.Request(model.SystemPrompt("Be brief."), model.UserPrompt("Capital of France?"))},
		model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	fmt.Println(resp.FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// Paris is the capital of France.
	// stop 12 7
}

func ExampleNew() {
	srv := modeltest.ServeFile("testdata/text.json")
	defer srv.Close()

	// The caller's client: backend, key and base URL as the SDK takes them.
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "AIza...",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL, APIVersion: "v1beta"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := google.New(client, "gemini-2.5-flash", google.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Capital of France?"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	// Output:
	// Paris is the capital of France.
}

func ExampleModel_Stream() {
	srv := modeltest.ServeFile("testdata/stream_calls.sse")
	defer srv.Close()

	m, err := google.NewFromConfig("gemini-2.5-flash", google.Options{Config: google.Config{APIKey: "AIza...", BaseURL: srv.URL}})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = m.Stream(context.Background(), []model.Message{model.Request(model.UserPrompt("Weather in Paris and London?"))}, model.Params{},
		func(d model.Delta) {
			switch d.Kind {
			case model.DeltaThinking, model.DeltaText:
				fmt.Printf("%s: %s\n", d.Kind, d.Text)
			case model.DeltaToolCallDone:
				fmt.Printf("call %d: %s %s\n", d.Index, d.Call.Name, d.Call.Arguments)
			}
		})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// thinking: Comparing both cities.
	// text: Let me check.
	// call 0: get_weather {"city":"Paris"}
	// call 1: get_weather {"city":"London"}
}

func ExampleErrMissingAPIKey() {
	defer modeltest.RestoreEnv(google.EnvAPIKey, google.EnvGeminiAPIKey)()
	os.Unsetenv(google.EnvAPIKey)
	os.Unsetenv(google.EnvGeminiAPIKey)
	m, err := google.NewFromConfig("gemini-2.5-flash", google.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	fmt.Println(err)
	// Output:
	// model: request failed: google: no API key: set the GOOGLE_API_KEY (or GEMINI_API_KEY) environment variable or pass an API key
}
