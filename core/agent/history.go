package agent

import (
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// requestParts and responseParts are the part kinds each message kind may
// hold.
var (
	requestParts = map[string]bool{
		model.KindSystemPrompt: true, model.KindInstruction: true, model.KindUserPrompt: true,
		model.KindToolReturn: true, model.KindRetryPrompt: true,
	}
	responseParts = map[string]bool{
		model.KindText: true, model.KindToolCall: true, model.KindThinking: true, model.KindRefusal: true,
	}
)

// ValidateHistory checks that msgs is a history a provider accepts and a
// run can continue: every message is a request or a response with parts
// of its kind, and every tool call of a response is answered (a tool
// return or a retry prompt naming the call) in the request that follows
// it, which answers no other call; no tool return is host-only (see
// tool.HostOnly). The error wraps ErrInvalidHistory and
// names the first offending message by its index.
func ValidateHistory(msgs []model.Message) error {
	var open map[string]bool // the calls of the previous response
	for i, m := range msgs {
		if len(m.Parts) == 0 {
			return fmt.Errorf("%w: message %d has no parts", ErrInvalidHistory, i)
		}
		switch m.Kind {
		case model.KindRequest:
			for j, p := range m.Parts {
				if !requestParts[p.Kind] {
					return fmt.Errorf("%w: message %d (request) part %d: %q is not a request part", ErrInvalidHistory, i, j, p.Kind)
				}
				if p.Return != nil && p.Return.HostOnly {
					return fmt.Errorf("%w: message %d part %d: a host-only tool output cannot be in a history models read", ErrInvalidHistory, i, j)
				}
				id, answers := answeredCall(p)
				if !answers {
					continue
				}
				if !open[id] {
					if p.Kind == model.KindRetryPrompt {
						continue // a retry prompt may also speak of the output
					}
					return fmt.Errorf("%w: message %d part %d returns call %q, which the previous response did not make", ErrInvalidHistory, i, j, id)
				}
				delete(open, id)
			}
			if err := unanswered(open, i); err != nil {
				return err
			}
			open = nil
		case model.KindResponse:
			if err := unanswered(open, i); err != nil {
				return err
			}
			open = map[string]bool{}
			for j, p := range m.Parts {
				if !responseParts[p.Kind] {
					return fmt.Errorf("%w: message %d (response) part %d: %q is not a response part", ErrInvalidHistory, i, j, p.Kind)
				}
				if p.Kind == model.KindToolCall {
					if p.ToolCall == nil || p.ToolCall.ID == "" || p.ToolCall.Name == "" {
						return fmt.Errorf("%w: message %d part %d: a tool call needs an id and a name", ErrInvalidHistory, i, j)
					}
					if open[p.ToolCall.ID] {
						return fmt.Errorf("%w: message %d part %d: tool call id %q repeats", ErrInvalidHistory, i, j, p.ToolCall.ID)
					}
					open[p.ToolCall.ID] = true
				}
			}
		default:
			return fmt.Errorf("%w: message %d has kind %q (want request or response)", ErrInvalidHistory, i, m.Kind)
		}
	}
	return unanswered(open, len(msgs))
}

// answeredCall reports the call a request part answers, if any.
func answeredCall(p model.Part) (string, bool) {
	switch {
	case p.Kind == model.KindToolReturn && p.Return != nil:
		return p.Return.ToolCallID, true
	case p.Kind == model.KindRetryPrompt && p.ToolCallID != "":
		return p.ToolCallID, true
	}
	return "", false
}

// unanswered reports a call left open when message at (len(msgs) at the
// end) should have answered it.
func unanswered(open map[string]bool, at int) error {
	for id := range open {
		return fmt.Errorf("%w: tool call %q is not answered by message %d (the request after its response)", ErrInvalidHistory, id, at)
	}
	return nil
}

// SessionFromMessages starts a conversation that continues msgs (the
// Messages of an earlier run, possibly of another agent or process): the
// next run appends to a copy of them. msgs must pass ValidateHistory.
// Unlike SessionFromState, nothing is verified about who wrote msgs: they
// are a conversation to continue, not a paused run, so no call of theirs
// is ever executed.
func (a *Agent) SessionFromMessages(msgs []model.Message) (*Session, error) {
	if err := ValidateHistory(msgs); err != nil {
		return nil, err
	}
	return &Session{agent: a, id: newID("conv"), history: model.CloneMessages(msgs), actx: a.newContext()}, nil
}

// DecodeMessages reads a JSON list of messages (the form of
// RunResult.Messages), rejecting unknown message and part kinds with
// ErrInvalidHistory.
func DecodeMessages(data []byte) ([]model.Message, error) {
	var msgs []model.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidHistory, err)
	}
	return msgs, nil
}

// closeDangling answers the calls of a trailing response that a failed
// run never executed, so that the history it leaves stays valid for the
// next run: each call gets a cancelled return saying why.
func (t *transcript) closeDangling(request func(model.Message) model.Message, cause error) {
	if len(t.full) == 0 {
		return
	}
	last := t.full[len(t.full)-1]
	if last.Kind != model.KindResponse {
		return
	}
	calls := last.ToolCalls()
	if len(calls) == 0 {
		return
	}
	next := model.Message{Kind: model.KindRequest, Parts: make([]model.Part, 0, len(calls))}
	for _, c := range calls {
		next.Parts = append(next.Parts, model.ToolReturn(tool.ErrorReturn(c, tool.Cancelled("the run failed before this call ran: "+cause.Error()))))
	}
	t.append(request(next))
}
