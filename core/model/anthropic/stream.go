package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/starweaver-go/starweaver/core/model"
)

// errStreamCut is returned when a stream ends cleanly before message_stop.
var errStreamCut = errors.New("the response stream ended before message_stop")

// stream sends a streaming request (body has stream: true) and assembles
// its events into out with the SDK's event decoder and accumulator,
// reporting each event's delta to deltas when it is not nil.
func (m *Model) stream(ctx context.Context, body []byte, ropts []option.RequestOption, out *wireResponse, deltas model.DeltaHandler) error {
	var res *http.Response
	err := m.client.Post(ctx, messagesPath, json.RawMessage(body), &res, ropts...)
	s := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), err)
	defer s.Close()
	var (
		acc              sdk.Message
		started, stopped bool
		rep              = reporter{deltas: deltas}
	)
	for s.Next() {
		started = true
		ev := s.Current()
		if err := acc.Accumulate(ev); err != nil {
			return fmt.Errorf("malformed stream: %w", err)
		}
		if ev.Type == "message_stop" {
			stopped = true
		}
		if deltas != nil {
			rep.report(&ev, &acc)
		}
	}
	if err := s.Err(); err != nil {
		var apiErr *sdk.Error
		if started && !stopped && !errors.As(err, &apiErr) {
			return fmt.Errorf("the response stream broke before message_stop: %w", err)
		}
		return err
	}
	if !stopped {
		return errStreamCut
	}
	fromAccumulated(&acc, out)
	return nil
}

// reporter turns stream events, once accumulated, into deltas. Tool calls
// are numbered among the response's calls, which are its tool_use blocks in
// order (see parseResponse).
type reporter struct {
	deltas model.DeltaHandler
	// calls maps the content block index of each tool_use block seen so
	// far to its call index.
	calls map[int64]int
}

func (r *reporter) report(ev *sdk.MessageStreamEventUnion, acc *sdk.Message) {
	switch ev.Type {
	case "content_block_start":
		if b := &ev.ContentBlock; b.Type == "tool_use" {
			if r.calls == nil {
				r.calls = make(map[int64]int)
			}
			i := len(r.calls)
			r.calls[ev.Index] = i
			r.deltas(model.Delta{Kind: model.DeltaToolCallStart, Index: i, Call: &model.ToolCall{ID: b.ID, Name: b.Name}})
		}
	case "content_block_delta":
		d := &ev.Delta
		switch d.Type {
		case "text_delta":
			if d.Text != "" {
				r.deltas(model.Delta{Kind: model.DeltaText, Text: d.Text})
			}
		case "thinking_delta":
			if d.Thinking != "" {
				r.deltas(model.Delta{Kind: model.DeltaThinking, Text: d.Thinking})
			}
		case "input_json_delta":
			if i, ok := r.calls[ev.Index]; ok && d.PartialJSON != "" {
				r.deltas(model.Delta{Kind: model.DeltaToolCallArguments, Index: i, Text: d.PartialJSON})
			}
		}
	case "content_block_stop":
		i, ok := r.calls[ev.Index]
		if !ok || ev.Index >= int64(len(acc.Content)) {
			return
		}
		b := &acc.Content[ev.Index]
		if len(b.Input) > 0 && !json.Valid(b.Input) {
			// parseResponse fails the response: no call to start.
			return
		}
		p := model.ToolCallPart(b.ID, b.Name, b.Input)
		r.deltas(model.Delta{Kind: model.DeltaToolCallDone, Index: i, Call: p.ToolCall})
	}
}

// fromAccumulated copies what the package reads from an assembled message.
func fromAccumulated(acc *sdk.Message, out *wireResponse) {
	out.ID = acc.ID
	out.Model = string(acc.Model)
	out.StopReason = string(acc.StopReason)
	out.StopDetails.Explanation = acc.StopDetails.Explanation
	u := acc.Usage
	out.Usage = wireUsage{
		InputTokens:              int(u.InputTokens),
		OutputTokens:             int(u.OutputTokens),
		CacheCreationInputTokens: int(u.CacheCreationInputTokens),
		CacheReadInputTokens:     int(u.CacheReadInputTokens),
	}
	out.Usage.OutputTokensDetails.ThinkingTokens = int(u.OutputTokensDetails.ThinkingTokens)
	out.Content = make([]wireContent, len(acc.Content))
	for i := range acc.Content {
		b := &acc.Content[i]
		out.Content[i] = wireContent{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, Thinking: b.Thinking, Signature: b.Signature, Data: b.Data}
	}
}
