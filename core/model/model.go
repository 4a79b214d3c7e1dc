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
	// Settings tune the request (temperature, token limit, tool choice...).
	Settings Settings `json:"settings,omitzero"`
	// Output, when set, asks for a structured final answer.
	Output *Output `json:"output,omitempty"`
}

// Model answers a conversation. Request receives the whole history, the
// last message being the new request, and returns one response message.
//
// The messages are the model-visible projection of the history (see
// Visible): tool returns carry no application, user or private surfaces.
// The agent shares them with the model instead of copying them, so that a
// long conversation costs linear memory: the caller never modifies them
// after the call (the history only grows, and the slice's capacity is
// clipped so the caller's later appends never reach it), and a model may
// keep the slice (TestModel records it) but must never modify the slice,
// its messages or their parts.
type Model interface {
	Request(ctx context.Context, messages []Message, params Params) (Message, error)
}

// ErrModel wraps failures of a model (a script running out, a callback
// failing, a malformed response).
var ErrModel = errors.New("model: request failed")
