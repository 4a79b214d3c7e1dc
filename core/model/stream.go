package model

import "context"

// Delta kinds, in the order a response produces them.
const (
	// DeltaText is a fragment of the response's text.
	DeltaText = "text"
	// DeltaThinking is a fragment of the model's visible reasoning.
	DeltaThinking = "thinking"
	// DeltaToolCallStart opens a tool call: its index, id and name.
	DeltaToolCallStart = "tool_call_start"
	// DeltaToolCallArguments is a fragment of a tool call's arguments text.
	DeltaToolCallArguments = "tool_call_arguments"
	// DeltaToolCallDone closes a tool call: Call holds it whole (its
	// arguments complete JSON), as it will appear in the response.
	DeltaToolCallDone = "tool_call_done"
)

// Delta is one piece of a response while it streams. Index is the
// position of the tool call among the response's calls (for the tool call
// kinds); Text holds the fragment (text, thinking or argument text).
type Delta struct {
	Kind  string    `json:"kind"`
	Index int       `json:"index,omitempty"`
	Text  string    `json:"text,omitempty"`
	Call  *ToolCall `json:"tool_call,omitempty"`
}

// DeltaHandler receives a response's deltas, in order, from the goroutine
// making the request. It must return quickly; it must not keep Call past
// its return without copying it.
type DeltaHandler func(Delta)

// Streamer is a Model that can report its response while it streams. The
// returned message is the same one Request would return: every
// DeltaToolCallDone's call appears in it, in index order. A Streamer
// reports DeltaToolCallDone for a call only once its arguments are
// complete, so the caller may start the call before the response ends.
// With a nil handler, Stream behaves as Request.
type Streamer interface {
	Model
	Stream(ctx context.Context, messages []Message, params Params, deltas DeltaHandler) (Message, error)
}

// StreamsByDefault reports whether m streams its responses when nobody
// asks for deltas: a Streamer does, unless it has a Streaming method that
// says it is not configured to (providers, by their Options.Streaming),
// so a server that answers only whole responses keeps working. When a run
// does not ask for deltas, the agent streams for eager dispatch only from
// such models; a run that asks for deltas streams from every Streamer and
// dispatches eagerly from all of them.
func StreamsByDefault(m Model) bool {
	if _, ok := m.(Streamer); !ok {
		return false
	}
	if c, ok := m.(interface{ Streaming() bool }); ok {
		return c.Streaming()
	}
	return true
}

// StreamOrRequest streams from m when it is a Streamer and otherwise
// makes one request, reporting nothing until the response is whole: then
// every tool call of the response is reported as DeltaToolCallDone, so a
// caller has one path for both kinds of models.
func StreamOrRequest(ctx context.Context, m Model, messages []Message, params Params, deltas DeltaHandler) (Message, error) {
	if s, ok := m.(Streamer); ok && deltas != nil {
		return s.Stream(ctx, messages, params, deltas)
	}
	msg, err := m.Request(ctx, messages, params)
	if err != nil || deltas == nil {
		return msg, err
	}
	i := 0
	for _, p := range msg.Parts {
		if p.Kind == KindToolCall && p.ToolCall != nil {
			deltas(Delta{Kind: DeltaToolCallDone, Index: i, Call: p.ToolCall})
			i++
		}
	}
	return msg, nil
}
