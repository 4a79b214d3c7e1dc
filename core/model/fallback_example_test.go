package model_test

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// A primary that is overloaded: the secondary answers, and the response
// says so.
func ExampleNewFallback() {
	overloaded := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.Message{}, &model.ProviderError{Provider: "openai", StatusCode: 503, Message: "overloaded"}
	})
	secondary := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.Message{Parts: []model.Part{model.TextPart("Hello!")}, ModelName: "claude-sonnet-4-5", Provider: "anthropic"}, nil
	})
	on, _ := model.FallbackOn(model.FallbackServerError, model.FallbackRateLimit)
	f, err := model.NewFallback([]model.Model{overloaded, secondary}, model.FallbackOptions{On: on})
	if err != nil {
		panic(err)
	}
	resp, err := f.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Text(), "from", resp.Provider)
	fmt.Println("failed first:", resp.Attempts[0].Provider, resp.Attempts[0].StatusCode)
	fmt.Println("requests:", resp.Usage.Requests)
	// Output:
	// Hello! from anthropic
	// failed first: openai 503
	// requests: 2
}
