package bedrock_test

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// A model over Bedrock, configured by the AWS chain; here a local server
// answering a Converse response stands in for the endpoint, and the
// credentials are static test ones.
func ExampleNewFromConfig() {
	srv := modeltest.ServeFile("testdata/text.json")
	defer srv.Close()
	m, err := bedrock.NewFromConfig("anthropic.claude-sonnet-4-5-20250929-v1:0", bedrock.Options{
		MaxTokens: 1024,
		Config: bedrock.Config{
			Region:          "us-east-1",
			EndpointURL:     srv.URL, // or AWS_ENDPOINT_URL_BEDROCK_RUNTIME
			AccessKeyID:     "AKIAIOSFODNN7EXAMPLE",
			SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, err := m.Request(context.Background(), []model.Message{model.Request(model.UserPrompt("Hi"))}, model.Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Text(), msg.Usage.InputTokens, msg.Usage.OutputTokens)
	// Output: Hello! How can I help you today? 12 9
}
