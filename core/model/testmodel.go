package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
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
	// auto: no script; see NewAutoTestModel.
	auto bool
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

// NewAutoTestModel returns a model that needs no script: the first request
// of a run calls every tool offered (but the output tool) once, with
// arguments from [ExampleArguments]; the next answers with a summary: the
// output tool called with example arguments when a structured answer is
// asked for, else a JSON object of each tool's returned content by tool
// name ("ok" when no tool was offered). Tests of an agent's wiring need no
// script this way.
func NewAutoTestModel() *TestModel {
	return &TestModel{name: "test", auto: true}
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
	if m.auto {
		r := autoResponse(len(m.requests), messages, params)
		r.ModelName = m.name
		r.Usage = &Usage{Requests: 1}
		return r, nil
	}
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

// autoResponse is NewAutoTestModel's answer to the nth request.
func autoResponse(n int, messages []Message, params Params) Message {
	output := ""
	if params.Output != nil && params.Output.Mode == OutputTool {
		output = params.Output.Name
	}
	if !answeredSincePrompt(messages) {
		var calls []ToolCall
		for i, d := range params.Tools {
			if d.Name == output {
				continue
			}
			calls = append(calls, ToolCall{ID: fmt.Sprintf("auto_%d_%d", n, i), Name: d.Name, Arguments: exampleJSON(d.Parameters)})
		}
		if len(calls) > 0 {
			return CallsResponse(calls...)
		}
	}
	switch {
	case output != "":
		return CallsResponse(ToolCall{ID: fmt.Sprintf("auto_%d_output", n), Name: output, Arguments: exampleJSON(params.Output.Schema)})
	case params.Output != nil:
		return Response(TextPart(string(exampleJSON(params.Output.Schema))))
	}
	returns := map[string]any{}
	if len(messages) > 0 {
		for _, p := range messages[len(messages)-1].Parts {
			if p.Kind == KindToolReturn && p.Return != nil {
				returns[p.Return.Name] = p.Return.Content
			}
		}
	}
	if len(returns) == 0 {
		return Response(TextPart("ok"))
	}
	b, err := json.Marshal(returns)
	if err != nil {
		return Response(TextPart("ok"))
	}
	return Response(TextPart(string(b)))
}

// exampleJSON is ExampleArguments(schema) as JSON; {} for a value JSON
// cannot hold (a schema default or const of another Go type).
func exampleJSON(schema map[string]any) json.RawMessage {
	b, err := json.Marshal(ExampleArguments(schema))
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// answeredSincePrompt reports whether a response follows the last user
// prompt: the run's tools were called already.
func answeredSincePrompt(messages []Message) bool {
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].Kind == KindResponse {
			return true
		}
		for _, p := range messages[i].Parts {
			if p.Kind == KindUserPrompt {
				return false
			}
		}
	}
	return false
}

var _ Streamer = (*TestModel)(nil)

// Stream is Request reporting the response as deltas, deterministically:
// text and thinking split after each space, each tool call as a start, its
// arguments in two fragments (split at the middle rune) and a done. The
// deltas are reported after the response is taken from the script, so a
// failed request reports none.
func (m *TestModel) Stream(ctx context.Context, messages []Message, params Params, deltas DeltaHandler) (Message, error) {
	r, err := m.Request(ctx, messages, params)
	if err != nil || deltas == nil {
		return r, err
	}
	calls := 0
	for _, p := range r.Parts {
		switch p.Kind {
		case KindText, KindThinking:
			kind := DeltaText
			if p.Kind == KindThinking {
				kind = DeltaThinking
			}
			for _, f := range splitAfterSpaces(p.Text) {
				deltas(Delta{Kind: kind, Text: f})
			}
		case KindToolCall:
			if p.ToolCall == nil {
				continue
			}
			c := *p.ToolCall
			deltas(Delta{Kind: DeltaToolCallStart, Index: calls, Call: &ToolCall{ID: c.ID, Name: c.Name}})
			a, b := splitMiddle(string(c.Arguments))
			deltas(Delta{Kind: DeltaToolCallArguments, Index: calls, Text: a})
			deltas(Delta{Kind: DeltaToolCallArguments, Index: calls, Text: b})
			deltas(Delta{Kind: DeltaToolCallDone, Index: calls, Call: &c})
			calls++
		}
	}
	return r, nil
}

// splitAfterSpaces cuts s after each run of spaces; "" gives no fragment.
func splitAfterSpaces(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return append(out, s)
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitMiddle cuts s in two at the rune boundary nearest its middle, so
// that each half stays valid UTF-8.
func splitMiddle(s string) (string, string) {
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], s[i:]
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
