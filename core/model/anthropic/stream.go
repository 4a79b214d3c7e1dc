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
// its events into out, reporting each event's delta to deltas when it is
// not nil. The SDK's SSE decoder and Stream read the events (pings
// skipped, error events turned into *sdk.Error); the events themselves are
// decoded and accumulated by hand (streamdecode.go).
func (m *Model) stream(ctx context.Context, body []byte, ropts []option.RequestOption, out *wireResponse, deltas model.DeltaHandler) error {
	var res *http.Response
	err := m.client.Post(ctx, messagesPath, json.RawMessage(body), &res, ropts...)
	s := ssestream.NewStream[streamEvent](ssestream.NewDecoder(res), err)
	defer s.Close()
	var (
		started, stopped bool
		rep              = reporter{deltas: deltas}
	)
	for s.Next() {
		started = true
		ev := s.Current()
		if err := accumulate(out, &ev); err != nil {
			return fmt.Errorf("malformed stream: %w", err)
		}
		if ev.Type == "message_stop" {
			stopped = true
		}
		if deltas != nil {
			rep.report(&ev, out)
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
	return nil
}

// reporter turns stream events, once accumulated, into deltas. Tool calls
// are numbered among the response's calls, which are its tool_use blocks in
// order (see parseResponse).
type reporter struct {
	deltas model.DeltaHandler
	// calls maps the content block index of each tool_use block seen so
	// far to its call index.
	calls map[int]int
}

func (r *reporter) report(ev *streamEvent, acc *wireResponse) {
	switch ev.Type {
	case "content_block_start":
		if b := &ev.Block; b.Type == "tool_use" {
			if r.calls == nil {
				r.calls = make(map[int]int)
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
		if !ok || ev.Index >= len(acc.Content) {
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
