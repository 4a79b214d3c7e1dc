package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// sessionFromMessages reads sw_session_from_messages' msgs: a list of
// messages, or {"id", "messages"} for a session with a given id.
func sessionFromMessages(a *agent.Agent, msgs []byte) (*agent.Session, error) {
	if t := bytes.TrimSpace(msgs); len(t) > 0 && t[0] == '{' {
		var in struct {
			ID       string          `json:"id"`
			Messages json.RawMessage `json:"messages"`
		}
		if err := decodeStrict(t, &in); err != nil {
			return nil, err
		}
		var history []model.Message
		if len(in.Messages) > 0 && string(in.Messages) != "null" {
			h, err := agent.DecodeMessages(in.Messages)
			if err != nil {
				return nil, err
			}
			history = h
		}
		return a.SessionWithID(in.ID, history)
	}
	history, err := agent.DecodeMessages(msgs)
	if err != nil {
		return nil, err
	}
	return a.SessionFromMessages(history)
}

// hostExecutor hands a run's model requests and tool batches to the host
// as items on the run's pipe (a run whose spec sets "executor"): the host
// carries them out (as a durable engine's activities) and completes them.
// The run's loop waits for each answer before it goes on, so the host
// sees them one at a time, in the order the loop made them.
type hostExecutor struct{}

type stepModelItem struct {
	Kind    string             `json:"kind"`
	Token   int64              `json:"token"`
	Request agent.ModelRequest `json:"request"`
}

type stepBatchItem struct {
	Kind  string      `json:"kind"`
	Token int64       `json:"token"`
	Batch agent.Batch `json:"batch"`
}

// batchOutcome answers a step_batch item: one return per call, null for a
// call lost with its worker. Children, when set, has one entry per call
// too: a call the host ran as a child run (its Call.Child) is answered by
// that run's outcome, which the agent turns into the return.
type batchOutcome struct {
	OK       bool            `json:"ok"`
	Returns  []*tool.Return  `json:"returns"`
	Children []*childOutcome `json:"children"`
	Message  string          `json:"message"`
}

// childOutcome is how a child run the host ran ended: its result, or the
// error that kept it from giving one.
type childOutcome struct {
	Result *agent.RunResult `json:"result"`
	Error  string           `json:"error"`
}

func (hostExecutor) RequestModel(ctx context.Context, req agent.ModelRequest) (model.Message, error) {
	run := runFrom(ctx)
	if run == nil {
		return model.Message{}, fmt.Errorf("%w: a host executor used outside a host run", model.ErrModel)
	}
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return encodeItem(stepModelItem{Kind: "step_model", Token: token, Request: req})
	})
	if err != nil {
		return model.Message{}, err
	}
	var o modelOutcome
	if err := json.Unmarshal(data, &o); err != nil {
		return model.Message{}, fmt.Errorf("%w: the host answered a model request with malformed JSON: %v", model.ErrModel, err)
	}
	if !o.OK || o.Response == nil {
		return model.Message{}, o.stepFailure()
	}
	return *o.Response, nil
}

func (hostExecutor) RunBatch(ctx context.Context, b agent.Batch) ([]tool.Return, error) {
	run := runFrom(ctx)
	if run == nil {
		return nil, fmt.Errorf("%w: a host executor used outside a host run", agent.ErrState)
	}
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return encodeItem(stepBatchItem{Kind: "step_batch", Token: token, Batch: b})
	})
	if err != nil {
		return nil, err
	}
	var o batchOutcome
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("%w: the host answered a batch with malformed JSON: %v", agent.ErrState, err)
	}
	if !o.OK {
		return nil, fmt.Errorf("%w: the host could not run the batch: %s", agent.ErrState, o.Message)
	}
	if len(o.Returns) != len(b.Calls) {
		return nil, fmt.Errorf("%w: the host answered %d returns for %d calls", agent.ErrState, len(o.Returns), len(b.Calls))
	}
	if o.Children != nil && len(o.Children) != len(b.Calls) {
		return nil, fmt.Errorf("%w: the host answered %d child outcomes for %d calls", agent.ErrState, len(o.Children), len(b.Calls))
	}
	out := make([]tool.Return, len(b.Calls))
	for i, r := range o.Returns {
		if c := b.Calls[i]; o.Children != nil && o.Children[i] != nil && c.Child != nil {
			var err error
			if ch := o.Children[i]; ch.Result == nil {
				msg := ch.Error
				if msg == "" {
					msg = "the child run gave no result"
				}
				err = errors.New(msg)
			}
			out[i] = agent.ChildReturn(ctx, c.Call, c.Child.Agent, o.Children[i].Result, err)
			continue
		}
		if r == nil {
			out[i] = agent.LostReturn(b.Calls[i].Call)
			continue
		}
		out[i] = *r
	}
	return out, nil
}
