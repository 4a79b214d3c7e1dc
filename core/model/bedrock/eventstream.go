package bedrock

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// The SDK decodes ConverseStream's binary event stream on two goroutines,
// each frame through its schema-driven deserializer: about 12 µs of CPU
// per event, which made a streamed response cost 1.6 to 1.8 times a whole
// one. This file decodes the frames itself into the SDK's own event types
// (types.ConverseStreamOutput), which the assembler reads as before: a
// middleware placed under the SDK's event-stream deserializer takes the
// response body once the SDK has checked the status, and hands the SDK an
// empty stream.

// bodyTaker is the middleware that takes a successful stream's body.
type bodyTaker struct{ body io.ReadCloser }

func (*bodyTaker) ID() string { return "StarweaverTakeEventStreamBody" }

func (t *bodyTaker) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	if resp, ok := out.RawResponse.(*smithyhttp.Response); ok && resp.Body != nil {
		t.body = resp.Body
		resp.Body = io.NopCloser(strings.NewReader(""))
	}
	return out, md, nil
}

// takeBody returns the APIOptions entry that places t under the SDK's
// event-stream deserializer.
func (t *bodyTaker) option() func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Deserialize.Insert(t, "OperationEventStreamDeserializer", middleware.After)
	}
}

// frameReader reads the messages of an AWS event stream
// (application/vnd.amazon.eventstream): a prelude of the total and header
// lengths with its CRC32, the headers, the payload and the message's
// CRC32, big-endian.
type frameReader struct {
	r   *bufio.Reader
	buf []byte
}

// frame is one message: the headers this package reads, and the payload
// (valid until the next read).
type frame struct {
	messageType, eventType, exceptionType, errorCode, errorMessage string
	payload                                                        []byte
}

var errFrame = errors.New("malformed event stream frame")

// next reads the next message; io.EOF at a clean end of the stream.
func (fr *frameReader) next() (frame, error) {
	var f frame
	var prelude [12]byte
	if _, err := io.ReadFull(fr.r, prelude[:]); err != nil {
		if err == io.EOF {
			return f, io.EOF
		}
		return f, fmt.Errorf("reading an event stream frame: %w", err)
	}
	total := binary.BigEndian.Uint32(prelude[0:4])
	hlen := binary.BigEndian.Uint32(prelude[4:8])
	if crc32.ChecksumIEEE(prelude[:8]) != binary.BigEndian.Uint32(prelude[8:12]) {
		return f, fmt.Errorf("%w: prelude checksum", errFrame)
	}
	if total < 16 || total > 24<<20 || hlen > total-16 {
		return f, fmt.Errorf("%w: lengths %d and %d", errFrame, total, hlen)
	}
	n := int(total) - 12
	if cap(fr.buf) < n {
		fr.buf = make([]byte, n)
	}
	rest := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, rest); err != nil {
		return f, fmt.Errorf("reading an event stream frame: %w", err)
	}
	crc := crc32.Update(crc32.ChecksumIEEE(prelude[:]), crc32.IEEETable, rest[:n-4])
	if crc != binary.BigEndian.Uint32(rest[n-4:]) {
		return f, fmt.Errorf("%w: message checksum", errFrame)
	}
	if err := f.headers(rest[:hlen]); err != nil {
		return f, err
	}
	f.payload = rest[hlen : n-4]
	return f, nil
}

// headers reads the headers of a message, keeping the string ones it
// knows and skipping the others by their type's size.
func (f *frame) headers(h []byte) error {
	for len(h) > 0 {
		nl := int(h[0])
		if len(h) < 1+nl+1 {
			return fmt.Errorf("%w: header name", errFrame)
		}
		name := string(h[1 : 1+nl])
		typ := h[1+nl]
		h = h[2+nl:]
		var size int
		switch typ {
		case 0, 1: // true, false
		case 2:
			size = 1
		case 3:
			size = 2
		case 4:
			size = 4
		case 5, 8: // long, timestamp
			size = 8
		case 9: // uuid
			size = 16
		case 6, 7: // bytes, string
			if len(h) < 2 {
				return fmt.Errorf("%w: header %s", errFrame, name)
			}
			l := int(binary.BigEndian.Uint16(h))
			if len(h) < 2+l {
				return fmt.Errorf("%w: header %s", errFrame, name)
			}
			if typ == 7 {
				v := string(h[2 : 2+l])
				switch name {
				case ":message-type":
					f.messageType = v
				case ":event-type":
					f.eventType = v
				case ":exception-type":
					f.exceptionType = v
				case ":error-code":
					f.errorCode = v
				case ":error-message":
					f.errorMessage = v
				}
			}
			size = 2 + l
		default:
			return fmt.Errorf("%w: header %s of type %d", errFrame, name, typ)
		}
		if len(h) < size {
			return fmt.Errorf("%w: header %s", errFrame, name)
		}
		h = h[size:]
	}
	return nil
}

// wireEvent is the JSON payload of every ConverseStream event this package
// reads (ConverseStreamOutput's members share their field names).
type wireEvent struct {
	ContentBlockIndex *int32 `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text             *string                 `json:"text"`
		ToolUse          *struct{ Input string } `json:"toolUse"`
		ReasoningContent *struct {
			Text            *string `json:"text"`
			Signature       *string `json:"signature"`
			RedactedContent []byte  `json:"redactedContent"`
		} `json:"reasoningContent"`
	} `json:"delta"`
	StopReason string            `json:"stopReason"`
	Usage      *types.TokenUsage `json:"usage"`
	Message    string            `json:"message"`
}

// event maps one frame onto the SDK's event type: nil for an event this
// package does not read, an error (a smithy.APIError for an exception)
// otherwise.
func event(f *frame) (types.ConverseStreamOutput, error) {
	switch f.messageType {
	case "event":
	case "exception":
		var w wireEvent
		_ = json.Unmarshal(f.payload, &w) // a payload without a message still names the exception
		return nil, &smithy.GenericAPIError{Code: exceptionName(f.exceptionType), Message: w.Message}
	case "error":
		return nil, &smithy.GenericAPIError{Code: f.errorCode, Message: f.errorMessage}
	default:
		return nil, fmt.Errorf("%w: message type %q", errFrame, f.messageType)
	}
	switch f.eventType {
	case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata":
	default:
		return nil, nil // a member added to the API later
	}
	var w wireEvent
	if err := json.Unmarshal(f.payload, &w); err != nil {
		return nil, fmt.Errorf("malformed %s event: %w", f.eventType, err)
	}
	switch f.eventType {
	case "contentBlockStart":
		ev := &types.ConverseStreamOutputMemberContentBlockStart{Value: types.ContentBlockStartEvent{ContentBlockIndex: w.ContentBlockIndex}}
		if w.Start != nil && w.Start.ToolUse != nil {
			ev.Value.Start = &types.ContentBlockStartMemberToolUse{Value: types.ToolUseBlockStart{
				ToolUseId: aws.String(w.Start.ToolUse.ToolUseID), Name: aws.String(w.Start.ToolUse.Name)}}
		}
		return ev, nil
	case "contentBlockDelta":
		ev := &types.ConverseStreamOutputMemberContentBlockDelta{Value: types.ContentBlockDeltaEvent{ContentBlockIndex: w.ContentBlockIndex}}
		switch d := w.Delta; {
		case d == nil:
			return nil, fmt.Errorf("malformed contentBlockDelta event: no delta")
		case d.Text != nil:
			ev.Value.Delta = &types.ContentBlockDeltaMemberText{Value: *d.Text}
		case d.ToolUse != nil:
			ev.Value.Delta = &types.ContentBlockDeltaMemberToolUse{Value: types.ToolUseBlockDelta{Input: aws.String(d.ToolUse.Input)}}
		case d.ReasoningContent != nil:
			r := d.ReasoningContent
			var rd types.ReasoningContentBlockDelta
			switch {
			case r.Text != nil:
				rd = &types.ReasoningContentBlockDeltaMemberText{Value: *r.Text}
			case r.Signature != nil:
				rd = &types.ReasoningContentBlockDeltaMemberSignature{Value: *r.Signature}
			default:
				rd = &types.ReasoningContentBlockDeltaMemberRedactedContent{Value: r.RedactedContent}
			}
			ev.Value.Delta = &types.ContentBlockDeltaMemberReasoningContent{Value: rd}
		default:
			return nil, nil // a delta of a kind this package does not read (citations...)
		}
		return ev, nil
	case "contentBlockStop":
		return &types.ConverseStreamOutputMemberContentBlockStop{Value: types.ContentBlockStopEvent{ContentBlockIndex: w.ContentBlockIndex}}, nil
	case "messageStop":
		return &types.ConverseStreamOutputMemberMessageStop{Value: types.MessageStopEvent{StopReason: types.StopReason(w.StopReason)}}, nil
	case "metadata":
		return &types.ConverseStreamOutputMemberMetadata{Value: types.ConverseStreamMetadataEvent{Usage: w.Usage}}, nil
	}
	return &types.ConverseStreamOutputMemberMessageStart{Value: types.MessageStartEvent{Role: types.ConversationRoleAssistant}}, nil
}

// exceptionName is the exception's name as the API's errors give it
// (ThrottlingException) from its member name in the stream
// (throttlingException).
func exceptionName(member string) string {
	if member == "" {
		return "UnknownException"
	}
	return strings.ToUpper(member[:1]) + member[1:]
}
