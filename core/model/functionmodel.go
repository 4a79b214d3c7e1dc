package model

import (
	"context"
	"fmt"
)

// FunctionModel answers by calling a Go function, for tests whose responses
// depend on what the agent sent.
type FunctionModel struct {
	fn   func(ctx context.Context, messages []Message, params Params) (Message, error)
	name string
}

// NewFunctionModel returns a model backed by fn. fn receives the messages
// as the model does (see Model): it may keep them but must not modify them.
func NewFunctionModel(fn func(ctx context.Context, messages []Message, params Params) (Message, error)) *FunctionModel {
	return &FunctionModel{fn: fn, name: "function"}
}

// Request calls the function; a nil function, an error or a panic becomes a
// model error.
func (m *FunctionModel) Request(ctx context.Context, messages []Message, params Params) (msg Message, err error) {
	if m == nil || m.fn == nil {
		return Message{}, fmt.Errorf("%w: function model has no function", ErrModel)
	}
	defer func() {
		if p := recover(); p != nil {
			msg, err = Message{}, fmt.Errorf("%w: function model panicked: %v", ErrModel, p)
		}
	}()
	msg, err = m.fn(ctx, messages, params)
	if err != nil {
		return Message{}, fmt.Errorf("%w: %w", ErrModel, err)
	}
	msg.Kind = KindResponse
	if msg.ModelName == "" {
		msg.ModelName = m.name
	}
	if msg.Usage == nil {
		msg.Usage = &Usage{Requests: 1}
	}
	return msg, nil
}
