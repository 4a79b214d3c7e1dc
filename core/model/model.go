package model

import (
	"context"
	"errors"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Params is what the agent sends with each request besides the messages.
type Params struct {
	// Tools are the definitions the model may call in this step.
	Tools []tool.Definition `json:"tools"`
	// Settings are provider settings passed through unchanged.
	Settings map[string]any `json:"settings,omitempty"`
}

// Model answers a conversation. Request receives the whole history, the
// last message being the new request, and returns one response message.
// Implementations must not keep or modify messages after returning.
type Model interface {
	Request(ctx context.Context, messages []Message, params Params) (Message, error)
}

// ErrModel wraps failures of a model (a script running out, a callback
// failing, a malformed response).
var ErrModel = errors.New("model")
