package anthropic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sameDecode decodes data with decodeResponse and encoding/json and fails
// when one accepts what the other rejects or when they differ.
func sameDecode(t *testing.T, data []byte) {
	t.Helper()
	var want, got wireResponse
	werr := json.Unmarshal(data, &want)
	gerr := decodeResponse(data, &got)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s\nencoding/json: %v\ndecodeResponse: %v", data, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\ngot  %+v\nwant %+v", data, got, want)
	}
}

func TestDecodeFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameDecode(t, data)
	}
}

func TestDecodeEdges(t *testing.T) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"id":null,"content":null,"usage":null,"stop_details":null}`,
		`{"content":[null,{"type":"text","text":null}]}`,
		`{"id":5}`, `{"usage":{"input_tokens":1.5}}`, `{"usage":{"input_tokens":"5"}}`, `{"usage":[]}`, `{"content":{}}`, `{"content":[5]}`,
		`{"usage":{"input_tokens":-3,"output_tokens_details":{"thinking_tokens":7,"x":[1,{"a":"}"}]}}}`,
		` { "id" : "a\"b\\c\/d\u00e9\ud83c\udf27\ud800x\udc00" , "extra" : {"nested":["]", "\"", {"}":1}]}, "model":"m" } `,
		`{"content":[{"type":"tool_use","input":{"a":[1,2,{"b":null}]},"id":"t"},{"type":"tool_use","input":null},{"type":"x","input":"s"}]}`,
		`{"stop_details":{"explanation":"e","category":"c"},"stop_reason":"refusal","x":true,"y":false,"z":1e10}`,
		"{\"id\":\"\xff\xfe\"}",
		`{"id":"a"`, `{"id":"a",}`,
	} {
		sameDecode(t, []byte(s))
	}
}

// FuzzDecodeResponse builds responses from fuzzed values, encodes them as
// a JSON encoder would (keys as the API sends them) and checks the decoder
// against encoding/json. Raw fuzz bytes must never panic the decoder and
// must be rejected when they are not JSON; their values are not compared,
// since encoding/json also matches keys case-insensitively and merges
// duplicate keys, which the API never sends.
func FuzzDecodeResponse(f *testing.F) {
	f.Add("msg_1", "text", "Hello \"world\"\n<&>", `{"a":1}`, int64(12), []byte(`{"id":"x"}`))
	f.Add("", "tool_use", "\u2028\xff", `[1,"2",null]`, int64(-1), []byte(`{"content":[{"text":"\u00e9"}]}`))
	f.Fuzz(func(t *testing.T, id, typ, text, input string, n int64, raw []byte) {
		var r wireResponse
		if err := decodeResponse(raw, &r); err == nil && !json.Valid(raw) {
			t.Fatalf("accepted invalid JSON %q", raw)
		}
		if !json.Valid([]byte(input)) {
			input = `{}`
		}
		v := map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": text,
			"content": []any{
				map[string]any{"type": typ, "text": text, "citations": nil},
				map[string]any{"type": "tool_use", "id": id, "name": text, "input": json.RawMessage(input)},
				map[string]any{"type": "thinking", "thinking": text, "signature": id},
				map[string]any{"type": "redacted_thinking", "data": text},
			},
			"stop_reason": typ, "stop_sequence": nil,
			"stop_details": map[string]any{"explanation": text},
			"usage": map[string]any{"input_tokens": n, "output_tokens": n / 2, "cache_read_input_tokens": 0,
				"cache_creation_input_tokens": n % 7, "output_tokens_details": map[string]any{"thinking_tokens": n}},
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		sameDecode(t, data)
	})
}
