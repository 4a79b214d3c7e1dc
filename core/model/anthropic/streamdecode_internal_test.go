package anthropic

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
)

// events reads the SSE events of data with the SDK's decoder.
func events(data []byte) ssestream.Decoder {
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(data))}
	return ssestream.NewDecoder(res)
}

// sdkAccumulated assembles data's events with the SDK's event union and
// Message.Accumulate, the reference the hand decoder must match.
func sdkAccumulated(t *testing.T, data []byte) (wireResponse, error) {
	t.Helper()
	s := ssestream.NewStream[sdk.MessageStreamEventUnion](events(data), nil)
	var acc sdk.Message
	for s.Next() {
		if err := acc.Accumulate(s.Current()); err != nil {
			return wireResponse{}, err
		}
	}
	if err := s.Err(); err != nil {
		return wireResponse{}, err
	}
	var out wireResponse
	out.ID, out.Model, out.StopReason = acc.ID, string(acc.Model), string(acc.StopReason)
	out.StopDetails.Explanation = acc.StopDetails.Explanation
	u := acc.Usage
	out.Usage = wireUsage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens),
		CacheCreationInputTokens: int(u.CacheCreationInputTokens), CacheReadInputTokens: int(u.CacheReadInputTokens)}
	out.Usage.OutputTokensDetails.ThinkingTokens = int(u.OutputTokensDetails.ThinkingTokens)
	for i := range acc.Content {
		b := &acc.Content[i]
		out.Content = append(out.Content, wireContent{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, Thinking: b.Thinking, Signature: b.Signature, Data: b.Data})
	}
	return out, nil
}

// handAccumulated assembles data's events as Model.stream does.
func handAccumulated(data []byte) (wireResponse, error) {
	s := ssestream.NewStream[streamEvent](events(data), nil)
	var out wireResponse
	for s.Next() {
		ev := s.Current()
		if err := accumulate(&out, &ev); err != nil {
			return wireResponse{}, err
		}
	}
	return out, s.Err()
}

func sameStream(t *testing.T, name string, data []byte) {
	t.Helper()
	want, werr := sdkAccumulated(t, data)
	got, gerr := handAccumulated(data)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: SDK: %v, hand: %v", name, werr, gerr)
	}
	if werr != nil {
		return
	}
	for i := range want.Content { // an empty input is the same, nil or not
		if string(want.Content[i].Input) == "" {
			want.Content[i].Input = nil
		}
	}
	for i := range got.Content {
		if string(got.Content[i].Input) == "" {
			got.Content[i].Input = nil
		}
	}
	if len(got.Content) == 0 && len(want.Content) == 0 {
		got.Content, want.Content = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nhand %+v\nSDK  %+v", name, got, want)
	}
}

// TestStreamDecodeMatchesSDK: the hand decoder assembles every stream
// fixture, and the edge cases below, as the SDK's accumulator does.
func TestStreamDecodeMatchesSDK(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.sse")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameStream(t, f, data)
	}
	ev := func(lines ...string) []byte {
		var b strings.Builder
		for _, l := range lines {
			typ := l[strings.Index(l, `"type":"`)+8:]
			typ = typ[:strings.IndexByte(typ, '"')]
			b.WriteString("event: " + typ + "\ndata: " + l + "\n\n")
		}
		return []byte(b.String())
	}
	start := `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":4}}}`
	cases := map[string][]byte{
		"usage counts absent from message_delta keep message_start's": ev(start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"there\" \u00e9"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7,"output_tokens_details":{"thinking_tokens":2}}}`,
			`{"type":"message_stop"}`),
		"message_delta counts overwrite": ev(start,
			`{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","explanation":"no"}},"usage":{"input_tokens":20,"output_tokens":3,"cache_creation_input_tokens":5,"cache_read_input_tokens":0}}`,
			`{"type":"message_stop"}`),
		"tool input streamed over an empty object, thinking and signature": ev(start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}`,
			`{"type":"content_block_stop","index":1}`,
			`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"g","input":{}}}`,
			`{"type":"content_block_stop","index":2}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
			`{"type":"message_stop"}`),
		"unknown events and fields are skipped": ev(start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[{"a":[1,2,{"b":null}]}]}}`,
			`{"type":"something_new","index":9,"payload":{"x":[true,false]}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_stop"}`),
		"a message_delta without usage keeps message_start's counts": ev(start,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`,
			`{"type":"message_stop"}`),
		"a block out of order is refused": ev(start,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`),
		"a delta for an unknown block is refused": ev(start,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`),
	}
	for name, data := range cases {
		sameStream(t, name, data)
	}
}

// FuzzStreamEvent: any valid JSON decodes without a panic, and a value
// encoding/json rejects for a field's type is rejected too.
func FuzzStreamEvent(f *testing.F) {
	for _, s := range []string{`{"type":"message_start","message":{"content":[]}}`, `{"index":"x"}`, `{"delta":{"text":1}}`, `{"usage":null}`, `[]`, `{"content_block":{"input":[1,{"a":"\u0000"}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var ev streamEvent
		_ = json.Unmarshal(data, &ev)
	})
}
