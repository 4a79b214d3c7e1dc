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
	// A step_model's failure may say what the model error said where the
	// model ran (a durable run's activity): its provider, status and code,
	// and a fallback's attempts (code "fallback_failed").
	Provider   string          `json:"provider,omitempty"`
	StatusCode int             `json:"status_code,omitempty"`
	Code       string          `json:"code,omitempty"`
	Attempts   []model.Attempt `json:"attempts,omitempty"`
}

// stepFailure is the error of a failed step_model outcome: its message,
// errors.Is(err, model.ErrModel), and the provider's or the fallback's
// error for errors.As, so the run fails with them as a local run would.
func (o *modelOutcome) stepFailure() error {
	e := &remoteModelError{msg: fmt.Sprintf("%v: %s", model.ErrModel, o.Message)}
	switch {
	case o.Code == "fallback_failed" && len(o.Attempts) > 0:
		errs := make([]error, len(o.Attempts))
		for i, a := range o.Attempts {
			ae := &remoteModelError{msg: a.Error}
			if a.Provider != "" {
				ae.cause = &model.ProviderError{Provider: a.Provider, StatusCode: a.StatusCode, Code: a.Code}
			}
			errs[i] = ae
		}
		e.cause = model.NewFallbackError(o.Attempts, errs)
	case o.Provider != "":
		e.cause = &model.ProviderError{Provider: o.Provider, StatusCode: o.StatusCode, Code: o.Code}
	}
	return e
}

// remoteModelError is a model error that happened elsewhere: its text,
// and what it was for errors.As.
type remoteModelError struct {
	msg   string
	cause error
}

func (e *remoteModelError) Error() string { return e.msg }

func (e *remoteModelError) Is(target error) bool { return target == model.ErrModel }

func (e *remoteModelError) Unwrap() error { return e.cause }

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
