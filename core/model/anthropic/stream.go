package anthropic

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// errStreamCut is returned when a stream ends cleanly before message_stop.
var errStreamCut = errors.New("the response stream ended before message_stop")

// stream sends a streaming request and assembles the events into one
// message with the SDK's accumulator.
func (m *Model) stream(ctx context.Context, body sdk.MessageNewParams, ropts []option.RequestOption) (*sdk.Message, error) {
	s := m.client.Messages.NewStreaming(ctx, body, ropts...)
	defer s.Close()
	var (
		acc              sdk.Message
		started, stopped bool
	)
	for s.Next() {
		started = true
		ev := s.Current()
		if err := acc.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("malformed stream: %w", err)
		}
		if ev.Type == "message_stop" {
			stopped = true
		}
	}
	if err := s.Err(); err != nil {
		var apiErr *sdk.Error
		if started && !stopped && !errors.As(err, &apiErr) {
			return nil, fmt.Errorf("the response stream broke before message_stop: %w", err)
		}
		return nil, err
	}
	if !stopped {
		return nil, errStreamCut
	}
	return &acc, nil
}
