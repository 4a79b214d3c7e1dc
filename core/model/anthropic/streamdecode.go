package anthropic

import (
	"encoding/json"
	"fmt"
)

// Stream events are decoded by hand, as whole responses are (see
// decode.go): the SDK's event union costs its reflection-based decoder
// and its accumulator's raw-JSON bookkeeping on every event, which made a
// streamed response cost about three times a whole one. The SDK's SSE
// decoder and Stream still read the events (pings, error events turned
// into *sdk.Error); only the event's JSON, which encoding/json has
// validated before calling UnmarshalJSON, is walked here, and assembled
// into a wireResponse by the SDK's accumulation rules (Message.Accumulate).

// streamEvent is one event of a streamed Messages response: the fields of
// every event type the package reads, the others skipped.
type streamEvent struct {
	Type  string
	Index int
	// Message is message_start's message.
	Message wireResponse
	// Block is content_block_start's block.
	Block wireContent
	// Delta is a content_block_delta's or message_delta's delta.
	Delta streamDelta
	// Usage is message_delta's usage; absent counts are -1 (they keep
	// the value message_start gave).
	Usage wireUsage
}

type streamDelta struct {
	Type        string
	Text        string
	PartialJSON string
	Thinking    string
	Signature   string
	StopReason  string
	Explanation string
}

// UnmarshalJSON decodes an event whose JSON encoding/json has validated.
func (e *streamEvent) UnmarshalJSON(data []byte) error {
	*e = streamEvent{}
	// Absent counts stay -1, whether usage or only some of its fields
	// are missing.
	e.Usage = wireUsage{InputTokens: -1, OutputTokens: -1, CacheCreationInputTokens: -1, CacheReadInputTokens: -1}
	e.Usage.OutputTokensDetails.ThinkingTokens = -1
	d := decoder{data: data}
	var key string
	open, err := d.enter('{')
	for err == nil && open && d.next(&key) {
		switch key {
		case "type":
			err = d.str(&e.Type)
		case "index":
			err = d.integer(&e.Index)
		case "message":
			err = d.response(&e.Message)
		case "content_block":
			err = d.block(&e.Block)
		case "delta":
			err = d.delta(&e.Delta)
		case "usage":
			err = d.usage(&e.Usage)
		default:
			d.skip()
		}
	}
	if err != nil {
		return fmt.Errorf("stream event: %w", err)
	}
	return nil
}

func (d *decoder) delta(dl *streamDelta) error {
	var key string
	open, err := d.enter('{')
	for err == nil && open && d.next(&key) {
		switch key {
		case "type":
			err = d.str(&dl.Type)
		case "text":
			err = d.str(&dl.Text)
		case "partial_json":
			err = d.str(&dl.PartialJSON)
		case "thinking":
			err = d.str(&dl.Thinking)
		case "signature":
			err = d.str(&dl.Signature)
		case "stop_reason":
			err = d.str(&dl.StopReason)
		case "stop_details":
			var r wireResponse
			err = d.stopDetails(&r)
			dl.Explanation = r.StopDetails.Explanation
		default:
			d.skip()
		}
	}
	return err
}

// accumulate adds ev to acc as the SDK's Message.Accumulate does for the
// fields the package reads.
func accumulate(acc *wireResponse, ev *streamEvent) error {
	switch ev.Type {
	case "message_start":
		*acc = ev.Message
		for i := range acc.Content {
			acc.Content[i].Input = ownInput(acc.Content[i].Input)
		}
	case "message_delta":
		// Every count is a whole-message total: it overwrites, and an
		// absent one keeps message_start's.
		acc.StopReason = ev.Delta.StopReason
		acc.StopDetails.Explanation = ev.Delta.Explanation
		u := &ev.Usage
		acc.Usage.OutputTokens = max(u.OutputTokens, 0)
		setIfPresent(&acc.Usage.InputTokens, u.InputTokens)
		setIfPresent(&acc.Usage.CacheCreationInputTokens, u.CacheCreationInputTokens)
		setIfPresent(&acc.Usage.CacheReadInputTokens, u.CacheReadInputTokens)
		setIfPresent(&acc.Usage.OutputTokensDetails.ThinkingTokens, u.OutputTokensDetails.ThinkingTokens)
	case "content_block_start":
		// Blocks start in index order with no gaps.
		if ev.Index != len(acc.Content) {
			return fmt.Errorf("received event of type %s for content block at index %d, expected index %d", ev.Type, ev.Index, len(acc.Content))
		}
		acc.Content = append(acc.Content, ev.Block)
		acc.Content[ev.Index].Input = ownInput(ev.Block.Input)
	case "content_block_delta":
		if ev.Index < 0 || ev.Index >= len(acc.Content) {
			return fmt.Errorf("received event of type %s for unknown content block at index %d", ev.Type, ev.Index)
		}
		cb := &acc.Content[ev.Index]
		switch ev.Delta.Type {
		case "text_delta":
			cb.Text += ev.Delta.Text
		case "input_json_delta":
			if ev.Delta.PartialJSON != "" {
				if string(cb.Input) == "{}" {
					cb.Input = json.RawMessage(ev.Delta.PartialJSON)
				} else {
					cb.Input = append(cb.Input, ev.Delta.PartialJSON...)
				}
			}
		case "thinking_delta":
			cb.Thinking += ev.Delta.Thinking
		case "signature_delta":
			cb.Signature += ev.Delta.Signature
		}
	case "content_block_stop":
		if ev.Index < 0 || ev.Index >= len(acc.Content) {
			return fmt.Errorf("received event of type %s for unknown content block at index %d", ev.Type, ev.Index)
		}
	}
	return nil
}

func setIfPresent(dst *int, v int) {
	if v >= 0 {
		*dst = v
	}
}

// ownInput copies a block's raw input out of the event's buffer, which the
// SSE decoder may reuse and which deltas are appended to.
func ownInput(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return append(make(json.RawMessage, 0, len(raw)+64), raw...)
}
