package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// TestModel answers with scripted responses, in order, and records every
// request it receives so tests can read back the messages and tool
// definitions the agent sent. It is safe for concurrent use.
type TestModel struct {
	mu        sync.Mutex
	responses []Message
	next      int
	requests  []CapturedRequest
	name      string
}

// CapturedRequest is one request as a TestModel received it. Messages is
// the slice the model was given, kept without a copy (see Model), so
// recording a long session costs memory linear in its length; treat it as
// read-only.
type CapturedRequest struct {
	Messages []Message `json:"messages"`
	Params   Params    `json:"params"`
}

// NewTestModel returns a model that answers with responses in order and
// fails once they run out.
func NewTestModel(responses ...Message) *TestModel {
	return &TestModel{responses: responses, name: "test"}
}

// ErrInvalidScript is wrapped by NewCheckedTestModel's errors.
var ErrInvalidScript = errors.New("model: invalid test model script")

// NewCheckedTestModel is NewTestModel for scripts that come from elsewhere
// (a host, a file): it refuses a script holding a message that is not a
// response or has no parts, naming the first such message by its index,
// with an error wrapping [ErrInvalidScript].
func NewCheckedTestModel(responses ...Message) (*TestModel, error) {
	for i, r := range responses {
		if r.Kind != KindResponse || len(r.Parts) == 0 {
			return nil, fmt.Errorf("%w: response %d is not a non-empty response message", ErrInvalidScript, i)
		}
	}
	return NewTestModel(responses...), nil
}

// TextModel returns a TestModel answering once with text.
func TextModel(text string) *TestModel { return NewTestModel(Response(TextPart(text))) }

// CallsResponse returns a response asking for the given calls.
func CallsResponse(calls ...ToolCall) Message {
	m := Message{Kind: KindResponse}
	for _, c := range calls {
		m.Parts = append(m.Parts, ToolCallPart(c.ID, c.Name, c.Arguments))
	}
	return m
}

// Call is a helper building a ToolCall whose arguments are v encoded as JSON.
// It panics if v cannot be encoded: it is meant for literals in tests.
func Call(id, name string, v any) ToolCall {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("model.Call: arguments of %s: %v", name, err))
	}
	return ToolCall{ID: id, Name: name, Arguments: b}
}

// Request records the request (sharing messages, see Model) and returns
// the next scripted response.
func (m *TestModel) Request(ctx context.Context, messages []Message, params Params) (Message, error) {
	if err := ctx.Err(); err != nil {
		return Message{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, CapturedRequest{Messages: messages, Params: params})
	if m.next >= len(m.responses) {
		return Message{}, fmt.Errorf("%w: test model script exhausted after %d responses", ErrModel, len(m.responses))
	}
	r := m.responses[m.next].Clone()
	m.next++
	r.Kind = KindResponse
	r.ModelName = m.name
	if r.Usage == nil {
		r.Usage = &Usage{Requests: 1}
	}
	return r, nil
}

// Requests returns every request received so far.
func (m *TestModel) Requests() []CapturedRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]CapturedRequest(nil), m.requests...)
}

// Remaining returns how many scripted responses are left.
func (m *TestModel) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.responses) - m.next
}
