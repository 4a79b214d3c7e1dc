package bedrock

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
)

// encode writes messages as the SDK's own encoder does.
func encode(t *testing.T, msgs ...eventstream.Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, m := range msgs {
		if err := enc.Encode(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func eventMsg(typ, payload string, extra ...eventstream.Header) eventstream.Message {
	h := eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("event")},
		{Name: ":event-type", Value: eventstream.StringValue(typ)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
	}
	return eventstream.Message{Headers: append(h, extra...), Payload: []byte(payload)}
}

func reader(b []byte) *frameReader { return &frameReader{r: bufio.NewReader(bytes.NewReader(b))} }

// TestFrameReaderHeaders: headers of every type are skipped by their size,
// the string ones read, and every event maps onto the SDK's type.
func TestFrameReaderHeaders(t *testing.T) {
	extra := []eventstream.Header{
		{Name: "b", Value: eventstream.BoolValue(true)}, {Name: "f", Value: eventstream.BoolValue(false)},
		{Name: "y", Value: eventstream.Int8Value(1)}, {Name: "s", Value: eventstream.Int16Value(2)},
		{Name: "i", Value: eventstream.Int32Value(3)}, {Name: "l", Value: eventstream.Int64Value(4)},
		{Name: "x", Value: eventstream.BytesValue([]byte{1, 2, 3})}, {Name: "t", Value: eventstream.TimestampValue(time.Unix(1, 0))},
		{Name: "u", Value: eventstream.UUIDValue{1, 2, 3}},
	}
	b := encode(t,
		eventMsg("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"reasoningContent":{"redactedContent":"AQID"}},"p":"abc"}`, extra...),
		eventMsg("futureEvent", `{}`),
		eventMsg("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"citation":{}}}`),
		eventMsg("metadata", `{"usage":{"inputTokens":3,"outputTokens":4,"cacheWriteInputTokens":5}}`),
	)
	fr := reader(b)
	var evs []types.ConverseStreamOutput
	for {
		f, err := fr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev, err := event(&f)
		if err != nil {
			t.Fatal(err)
		}
		if ev != nil {
			evs = append(evs, ev)
		}
	}
	if len(evs) != 2 {
		t.Fatalf("events = %#v", evs)
	}
	d := evs[0].(*types.ConverseStreamOutputMemberContentBlockDelta)
	rc := d.Value.Delta.(*types.ContentBlockDeltaMemberReasoningContent).Value.(*types.ReasoningContentBlockDeltaMemberRedactedContent)
	if *d.Value.ContentBlockIndex != 2 || !bytes.Equal(rc.Value, []byte{1, 2, 3}) {
		t.Fatalf("delta = %#v", d.Value)
	}
	u := evs[1].(*types.ConverseStreamOutputMemberMetadata).Value.Usage
	if *u.InputTokens != 3 || *u.OutputTokens != 4 || *u.CacheWriteInputTokens != 5 {
		t.Fatalf("usage = %+v", u)
	}
}

func TestFrameReaderFailures(t *testing.T) {
	good := encode(t, eventMsg("messageStart", `{"role":"assistant"}`))
	for name, b := range map[string][]byte{
		"prelude checksum": append([]byte{0, 0, 0, 99}, good[4:]...),
		"message checksum": append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1),
		"truncated":        good[:len(good)-3],
	} {
		if _, err := reader(b).next(); err == nil || err == io.EOF {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	exc := encode(t, eventstream.Message{Headers: eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
		{Name: ":exception-type", Value: eventstream.StringValue("modelStreamErrorException")},
	}, Payload: []byte(`{"message":"boom","originalStatusCode":500}`)})
	f, err := reader(exc).next()
	if err != nil {
		t.Fatal(err)
	}
	_, err = event(&f)
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ModelStreamErrorException" || ae.ErrorMessage() != "boom" {
		t.Fatalf("err = %v", err)
	}
}
