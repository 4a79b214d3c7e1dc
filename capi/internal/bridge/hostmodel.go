package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// hostModel is a model answered by the host (a Python FunctionModel).
// A request names its messages by transcript (see transcripts), and the
// host fetches those it lacks with sw_model_messages.
type hostModel struct {
	handle      int64
	transcripts transcripts
}

type modelItem struct {
	Kind       string       `json:"kind"`
	Token      int64        `json:"token"`
	Model      int64        `json:"model"`
	Transcript int64        `json:"transcript"`
	Length     int          `json:"length"`
	Params     model.Params `json:"params"`
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
	// Pinned until the host answered: it fetches the messages meanwhile.
	t := m.transcripts.acquire(messages)
	defer m.transcripts.release(t)
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return encodeItem(modelItem{Kind: "model", Token: token, Model: m.handle, Transcript: t.id, Length: len(messages), Params: params})
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

// modelMessagesRequest is sw_model_messages' request.
type modelMessagesRequest struct {
	Transcript int64 `json:"transcript"`
	From       int   `json:"from"`
	To         int   `json:"to"`
}

// modelMessagesJSON is what sw_model_messages reports: messages [from, to)
// of a transcript of the host model m.
func modelMessagesJSON(m *modelHandle, req []byte) ([]byte, error) {
	hm, ok := m.m.(*hostModel)
	if !ok {
		return nil, &abiError{Type: "unsupported", Message: "only host (function) models have transcripts"}
	}
	var r modelMessagesRequest
	if err := decodeStrict(req, &r); err != nil {
		return nil, err
	}
	return hm.transcripts.messages(r.Transcript, r.From, r.To)
}
