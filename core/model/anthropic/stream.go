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
)

// errStreamCut is returned when a stream ends cleanly before message_stop.
var errStreamCut = errors.New("the response stream ended before message_stop")

// stream sends a streaming request (body has stream: true) and assembles
// its events into out with the SDK's event decoder and accumulator.
func (m *Model) stream(ctx context.Context, body []byte, ropts []option.RequestOption, out *wireResponse) error {
	var res *http.Response
	err := m.client.Post(ctx, messagesPath, json.RawMessage(body), &res, ropts...)
	s := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), err)
	defer s.Close()
	var (
		acc              sdk.Message
		started, stopped bool
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
