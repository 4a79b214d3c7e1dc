package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"unicode/utf8"
)

// quickTestSchema uses every keyword quickSchema handles, and some it does
// not, so that the fuzzers explore both paths.
const quickTestSchema = `{
	"$id": "https://example.com/args",
	"type": "object",
	"properties": {
		"name":   {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-zé]+$", "description": "d"},
		"count":  {"type": "integer", "minimum": -5, "maximum": 100, "default": 1},
		"ex":     {"type": ["integer", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 10},
		"ratio":  {"type": "number", "maximum": 1},
		"num":    {"type": "number"},
		"mode":   {"enum": ["fast", "slow", null, true]},
		"fixed":  {"const": "x"},
		"tags":   {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
		"uniq":   {"type": "array", "uniqueItems": true},
		"minp":   {"type": "object", "minProperties": 1},
		"nested": {"$ref": "#/$defs/Nested"},
		"tree":   {"$ref": "#/$defs/Tree"},
		"legacy": {"$ref": "#/definitions/Legacy"},
		"map":    {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2},
		"any":    true,
		"none":   false,
		"multi":  {"type": "number", "multipleOf": 3},
		"choice": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
		"when":   {"type": "string", "format": "date-time"},
		"code":   {"type": "string", "pattern": "^(?=.*\\d)[a-z\\d\\s]+$"},
		"opt":    {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "maxLength": 2}, {"type": "null"}], "default": null}
	},
	"required": ["name"],
	"additionalProperties": false,
	"$defs": {
		"Nested": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"], "additionalProperties": false},
		"Tree": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
	},
	"definitions": {"Legacy": {"type": "string", "maxLength": 2}}
}`

func compileTestSchema(t testing.TB, text string) *Schema {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatal(err)
	}
	norm, err := NormalizeSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	s, err := CompileSchema(norm)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeAny(t testing.TB, text string) (any, bool) {
	d := json.NewDecoder(bytes.NewReader([]byte(text)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if d.More() {
		return nil, false
	}
	return v, true
}

func TestQuickSchemaAcceptsCommonArguments(t *testing.T) {
	s := compileTestSchema(t, quickTestSchema)
	for _, text := range []string{
		`{"name":"abc"}`,
		`{"name":"é","count":100,"ex":null,"mode":null,"fixed":"x","num":1.5e3}`,
		`{"name":"a","ex":9,"tags":["a","b"],"nested":{"on":false},"any":{"x":[1]}}`,
		`{"name":"a","tree":{"v":1,"kids":[{"v":2,"kids":[]},{}]},"legacy":"ab","map":{"a":1,"b":-2}}`,
		`{"name":"a","ratio":-7,"mode":true}`,
		`{"name":"a","opt":3}`, `{"name":"a","opt":"ab"}`, `{"name":"a","opt":null}`,
		"{\"name\":\"a\",\"code\":\"a1\u00a0\"}", // ECMA-262 look-ahead; \s takes NBSP
	} {
		v, _ := decodeAny(t, text)
		if !s.quick.acceptsJSON([]byte(text)) {
			t.Errorf("quick path rejected valid %s", text)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("full validator rejected %s: %v", text, err)
		}
	}
	// Values the quick path leaves to the full validator.
	for _, text := range []string{
		`{"name":"abc","count":1.0}`,  // integer written as a fraction
		`{"name":"abc","count":1e1}`,  // exponent
		`{"name":"abc","ratio":0.5}`,  // bounded fraction
		`{"name":"abc","multi":3}`,    // unsupported keyword
		`{"name":"abc","choice":"x"}`, // unsupported keyword
	} {
		v, _ := decodeAny(t, text)
		if s.quick.acceptsJSON([]byte(text)) {
			t.Errorf("quick path decided %s", text)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("Validate(%s) = %v", text, err)
		}
	}
	// The quick path never accepts invalid values.
	for _, text := range []string{
		`{}`, `{"name":""}`, `{"name":"ABC"}`, `{"name":"abcdefghi"}`, `{"name":"a","count":101}`,
		`{"name":"a","count":-6}`, `{"name":"a","count":99999999999999999999}`, `{"name":"a","count":-99999999999999999999}`, `{"name":"a","ex":0}`, `{"name":"a","ex":10}`, `{"name":"a","mode":"medium"}`,
		`{"name":"a","fixed":"y"}`, `{"name":"a","tags":[]}`, `{"name":"a","uniq":["a","a"]}`, `{"name":"a","minp":{}}`,
		`{"name":"a","tags":["a","b","c","d"]}`, `{"name":"a","nested":{}}`, `{"name":"a","nested":{"on":1}}`,
		`{"name":"a","tree":{"kids":[{"v":"x"}]}}`, `{"name":"a","legacy":"abc"}`, `{"name":"a","map":{"a":1,"b":2,"c":3}}`,
		`{"name":"a","map":{"a":"x"}}`, `{"name":"a","none":1}`, `{"name":"a","opt":-1}`, `{"name":"a","opt":"abc"}`, `{"name":"a","opt":true}`, `{"name":"a","code":"abc"}`, `{"name":"a","extra":1}`, `[]`, `"x"`, `null`,
	} {
		v, _ := decodeAny(t, text)
		if s.quick.acceptsJSON([]byte(text)) {
			t.Errorf("quick path accepted invalid %s", text)
		}
		if err := s.Validate(v); err == nil {
			t.Errorf("Validate accepted invalid %s", text)
		}
	}
}

func TestQuickSchemaUnsupportedDocuments(t *testing.T) {
	for _, text := range []string{
		`{"properties":{"a":{"type":"string"}},"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"properties":{"a":{"$id":"inner","type":"string"}}}`,
		`{"properties":{"a":{"$ref":"#/properties/b"}, "b":{}}}`,
		`{"properties":{"a":{"x-unknown":1}}}`,
		`{"properties":{"a":{"enum":[1,2]}}}`,
		`{"properties":{"a":{"maximum":1.5}}}`,
	} {
		var raw map[string]any
		d := json.NewDecoder(bytes.NewReader([]byte(text)))
		d.UseNumber()
		if err := d.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		q, _ := compileQuick(raw, &patternSet{})
		if q.acceptsJSON([]byte(`{"a":"x"}`)) {
			t.Errorf("quick path judged a value of %s", text)
		}
	}
}

// FuzzQuickSchemaAgrees checks that the quick path only accepts what the
// full validator accepts, and never accepts a text that is not JSON within
// the argument limits. Any text goes in: the quick path must not panic on
// malformed or truncated input.
func FuzzQuickSchemaAgrees(f *testing.F) {
	for _, seed := range []string{
		`{"name":"abc"}`, `{"name":"é","count":100,"ex":null}`, `{"name":"a","tags":["a","b"]}`,
		`{"name":"a","tree":{"v":1,"kids":[{"v":2}]}}`, `{"name":"a","map":{"a":1}}`, `{"name":"a","count":1.0}`, `{"name":"a","uniq":[1,1.0]}`,
		`{"name":"a","any":{"x":[1,{"y":"\"}"}]},"num":-1}`, `{"name":"a","\u006eone":1}`, `{"name":"a","name":"b"}`,
		`{"name":"a","count":-0}`, `{"name":"a","ex":1e0}`, `{"name":"a","legacy":"ab"}`, `{"name":"a","mode":false}`,
		`{"name":"a\u00e9"}`, `{"name":"\ud83d\ude00"}`, `{"name":"a","opt":[1]}`, `{"name":"a","opt":"\u0041"}`, `[1]`, `null`, `{"name":"a","code":"a1\u00a0"}`, `{"name":"a","code":"x y"}`,
	} {
		f.Add(seed)
	}
	s := compileTestSchema(f, quickTestSchema)
	f.Fuzz(func(t *testing.T, text string) {
		accepted := s.quick.acceptsJSON([]byte(text))
		if !json.Valid([]byte(text)) {
			if accepted {
				t.Fatalf("quick path accepted invalid JSON %q", text)
			}
			return
		}
		if accepted && withinLimits(t, []byte(text)) != nil {
			t.Fatalf("quick path accepted %q, beyond the argument limits", text)
		}
		v, _ := decodeAny(t, text)
		if accepted {
			if err := s.Validate(v); err != nil {
				t.Fatalf("quick path accepted %s, full validator rejects: %v", text, err)
			}
		}
	})
}

// FuzzDecodeArgumentsMatchesEncodingJSON checks the argument parser against
// encoding/json with UseNumber.
func FuzzDecodeArgumentsMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e+10}}`, `{"a":1,"a":2}`,
		`{"s":"esc\"aped\\\u00e9\n\ud83d\ude00"}`, "{\"bad\":\"\xff\xfe\"}", `{"é":"ü"}`,
		` { "sp" : [ 1 , 2 ] } `, `{"n":0.1e-5}`, `null`, ` `, `[]`, `{`, `{"a":"\u0000"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, rawOut, err := decodeArguments(raw)
		if len(bytes.Trim(raw, " \t\r\n")) == 0 {
			if err != nil || len(got) != 0 || string(rawOut) != "{}" {
				t.Fatalf("empty %q: %v %v %s", raw, got, err, rawOut)
			}
			return
		}
		if !json.Valid(raw) {
			if err == nil {
				t.Fatalf("accepted invalid %q as %v", raw, got)
			}
			return
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil {
			t.Fatalf("encoding/json cannot decode valid %q: %v", raw, err)
		}
		switch want.(type) {
		case nil:
			if err != nil || len(got) != 0 || string(rawOut) != "{}" {
				t.Fatalf("null %q: %v %v %s", raw, got, err, rawOut)
			}
		case map[string]any:
			if lerr := withinLimits(t, raw); lerr != nil {
				// Beyond the argument limits (see MaxArgumentDepth) or not UTF-8.
				if KindOf(err) != ErrorKindInvalidArguments {
					t.Fatalf("%q is beyond the limits (%v) but got %v", raw, lerr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected %q: %v", raw, err)
			}
			if !reflect.DeepEqual(any(got), want) {
				t.Fatalf("decode %q:\n got %#v\nwant %#v", raw, got, want)
			}
			if !bytes.Equal(rawOut, raw) {
				t.Fatalf("arguments for the tool changed: %q", rawOut)
			}
		default:
			if err == nil || KindOf(err) != ErrorKindInvalidArguments {
				t.Fatalf("non-object %q: %v", raw, err)
			}
		}
	})
}

// withinLimits checks a text json.Valid accepted against MaxArgumentDepth,
// MaxNumberLength and UTF-8 with encoding/json's tokenizer, independently
// of the scanner checkArguments uses.
func withinLimits(t testing.TB, raw []byte) error {
	t.Helper()
	if !utf8.Valid(raw) {
		return errors.New("not valid UTF-8")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			t.Fatalf("tokenizing valid %q: %v", raw, err)
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				if depth++; depth > MaxArgumentDepth {
					return errors.New("too deep")
				}
			} else {
				depth--
			}
		case json.Number:
			if len(tok) > MaxNumberLength {
				return errors.New("number too long")
			}
		}
	}
}

// ValidateQuick and ValidateFull let BenchmarkValidate (package tool_test)
// time the two paths over the same arguments text: the quick path as calls
// take it, and the decoding plus full validator it saves.
func (s *Schema) ValidateQuick(raw []byte) error { return s.validateJSON(raw) }

func (s *Schema) ValidateFull(raw []byte) error { return s.Validate(parseValidObject(raw)) }

type quickTypedInner struct {
	Owner string `json:"owner"`
}

type quickTypedArgs struct {
	Query string            `json:"query" jsonschema:"description=q"`
	Limit int               `json:"limit,omitempty" jsonschema:"default=10,minimum=1,maximum=100"`
	Mode  string            `json:"mode,omitempty" jsonschema:"enum=a,enum=b"`
	Inner *quickTypedInner  `json:"inner,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	M     map[string]int    `json:"m,omitempty"`
	F     float64           `json:"f,omitempty"`
	U     uint8             `json:"u,omitempty"`
	B     bool              `json:"b"`
	Meta  map[string]string `json:"meta,omitempty"`
}

// Schemas generated for typed tools stay on the quick path, and a valid
// call through the registry allocates little.
func TestQuickPathCoversTypedSchemas(t *testing.T) {
	f := Typed("typed", "", func(_ context.Context, _ *Context, a quickTypedArgs) (Result, error) {
		return Result{Content: "ok"}, nil
	})
	r, err := NewRegistry(f)
	if err != nil {
		t.Fatal(err)
	}
	e := r.entries["typed"]
	if e.schema.quick.unsupported {
		t.Fatalf("typed schema is not on the quick path: %v", e.def.Parameters)
	}
	in := []byte(`{"query":"x","limit":5,"mode":"a","inner":{"owner":"o"},"tags":["a"],"m":{"k":1},"f":2,"u":3,"b":true}`)
	if !e.schema.quick.acceptsJSON(in) {
		t.Fatal("quick path rejected valid typed arguments")
	}

	plain, err := NewRegistry(New("plain", "", map[string]any{
		"properties": map[string]any{"q": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "maximum": 9}},
		"required":   []any{"q"},
	}, func(context.Context, *Context, json.RawMessage) (Result, error) { return Result{Content: "ok"}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	c := Call{ID: "1", Name: "plain", Arguments: json.RawMessage(`{"q":"x","n":3}`)}
	allocs := testing.AllocsPerRun(200, func() {
		if ret := plain.Execute(context.Background(), nil, c); ret.IsError {
			t.Fatal(ret.Content)
		}
	})
	if allocs > 5 {
		t.Fatalf("a trivial call allocates %.0f times", allocs)
	}
}
