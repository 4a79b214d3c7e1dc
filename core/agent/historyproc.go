package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/starweaver-go/starweaver/core/model"
)

// A HistoryProcessor rewrites the messages one model request sends: it
// receives the model-visible history (the last message being the new
// request) and returns what the model reads instead. It must not modify
// its argument (messages are shared with the stored history, which a
// processor never changes); it copies what it changes. The agent checks
// its result: a processor may drop a tool call only together with its
// return, and the result must still end with the request.
type HistoryProcessor interface {
	Process(ctx context.Context, messages []model.Message) ([]model.Message, error)
}

// HistoryProcessorFunc adapts a function to a HistoryProcessor.
type HistoryProcessorFunc func(ctx context.Context, messages []model.Message) ([]model.Message, error)

// Process calls f.
func (f HistoryProcessorFunc) Process(ctx context.Context, messages []model.Message) ([]model.Message, error) {
	return f(ctx, messages)
}

// HistoryProcessors adds processors that run, in order, over the messages
// of every model request of the agent's runs (see HistoryProcessor); the
// stored history keeps every message.
func (b *Builder) HistoryProcessors(ps ...HistoryProcessor) *Builder {
	b.opts.HistoryProcessors = append(b.opts.HistoryProcessors, ps...)
	return b
}

// processHistory runs the agent's processors over msgs and checks what
// they return.
func (a *Agent) processHistory(ctx context.Context, msgs []model.Message) ([]model.Message, error) {
	if len(a.historyProcessors) == 0 {
		return msgs, nil
	}
	before := unpaired(msgs)
	out := msgs
	for i, p := range a.historyProcessors {
		// A processor gets a slice it cannot grow into the caller's.
		next, err := p.Process(ctx, slices.Clip(out))
		if err != nil {
			return nil, fmt.Errorf("history processor %d: %w", i, err)
		}
		out = next
	}
	if len(out) == 0 || out[len(out)-1].Kind != model.KindRequest {
		return nil, fmt.Errorf("%w: the history processors returned a history that does not end with a request", ErrConfig)
	}
	for id := range unpaired(out) {
		if !before[id] {
			return nil, fmt.Errorf("%w: the history processors separated tool call %q from its return (every provider refuses a call without its return, or a return without its call): drop or keep both", ErrConfig, id)
		}
	}
	return out, nil
}

// unpaired returns the ids of the tool calls of msgs without a return
// after them and of the returns (and retry prompts naming a call) without
// their call before them.
func unpaired(msgs []model.Message) map[string]bool {
	calls := map[string]bool{}
	out := map[string]bool{}
	for i := range msgs {
		for _, p := range msgs[i].Parts {
			switch {
			case p.Kind == model.KindToolCall && p.ToolCall != nil:
				calls[p.ToolCall.ID] = true
			case p.Kind == model.KindToolReturn && p.Return != nil:
				if !calls[p.Return.ToolCallID] {
					out[p.Return.ToolCallID] = true
				}
				delete(calls, p.Return.ToolCallID)
			case p.Kind == model.KindRetryPrompt && p.ToolCallID != "":
				if !calls[p.ToolCallID] {
					out[p.ToolCallID] = true
				}
				delete(calls, p.ToolCallID)
			}
		}
	}
	for id := range calls {
		out[id] = true
	}
	return out
}

// KeepLastTurns is a HistoryProcessor that sends only the last n turns of
// the conversation, a turn starting at a request that holds a user prompt
// and answers no call, so a tool call is never sent without its return.
// The first request's system prompt parts stay in front. n must be
// positive.
func KeepLastTurns(n int) HistoryProcessor {
	return HistoryProcessorFunc(func(_ context.Context, msgs []model.Message) ([]model.Message, error) {
		if n < 1 {
			return nil, fmt.Errorf("%w: KeepLastTurns needs n >= 1, got %d", ErrConfig, n)
		}
		starts := make([]int, 0, 8)
		for i := range msgs {
			if turnStart(&msgs[i]) {
				starts = append(starts, i)
			}
		}
		if len(starts) <= n {
			return msgs, nil
		}
		cut := starts[len(starts)-n]
		var system []model.Part
		for _, p := range msgs[0].Parts {
			if p.Kind == model.KindSystemPrompt {
				system = append(system, p)
			}
		}
		out := make([]model.Message, 0, len(msgs)-cut)
		first := msgs[cut]
		if len(system) > 0 {
			first.Parts = append(slices.Clip(system), first.Parts...)
		}
		return append(append(out, first), msgs[cut+1:]...), nil
	})
}

// turnStart reports whether m opens a turn: a request with a user prompt
// that answers no tool call.
func turnStart(m *model.Message) bool {
	if m.Kind != model.KindRequest {
		return false
	}
	prompt := false
	for _, p := range m.Parts {
		switch {
		case p.Kind == model.KindToolReturn, p.Kind == model.KindRetryPrompt && p.ToolCallID != "":
			return false
		case p.Kind == model.KindUserPrompt:
			prompt = true
		}
	}
	return prompt
}
