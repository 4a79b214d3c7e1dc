package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// hostModel is a model answered by the host (a Python FunctionModel).
type hostModel struct {
	handle int64
}

type modelItem struct {
	Kind     string          `json:"kind"`
	Token    int64           `json:"token"`
	Model    int64           `json:"model"`
	Messages []model.Message `json:"messages"`
	Params   model.Params    `json:"params"`
}

type modelOutcome struct {
	OK       bool           `json:"ok"`
	Response *model.Message `json:"response"`
	Message  string         `json:"message"`
}

func (m *hostModel) Request(ctx context.Context, messages []model.Message, params model.Params) (model.Message, error) {
	run := runFrom(ctx)
	if run == nil {
		return model.Message{}, fmt.Errorf("%w: host model used outside a host run", model.ErrModel)
	}
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return encodeItem(modelItem{Kind: "model", Token: token, Model: m.handle, Messages: messages, Params: params})
	})
	if err != nil {
		return model.Message{}, err
	}
	var o modelOutcome
	if err := json.Unmarshal(data, &o); err != nil {
		return model.Message{}, fmt.Errorf("%w: host model returned malformed JSON: %v", model.ErrModel, err)
	}
	if !o.OK || o.Response == nil {
		return model.Message{}, fmt.Errorf("%w: %s", model.ErrModel, o.Message)
	}
	return *o.Response, nil
}
