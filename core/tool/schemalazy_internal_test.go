package tool

import (
	"errors"
	"testing"
)

// wholeTestSchema is read whole by the quick acceptor: the keywords of
// quickTestSchema less the ones it leaves to the full validator.
const wholeTestSchema = `{
	"type": "object",
	"properties": {
		"name":   {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-zé]+$", "description": "d"},
		"count":  {"type": "integer", "minimum": -5, "maximum": 100, "default": 1},
		"ex":     {"type": ["integer", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 10},
		"mode":   {"enum": ["fast", "slow", null, true]},
		"tags":   {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
		"tree":   {"$ref": "#/$defs/Tree"},
		"map":    {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2},
		"when":   {"type": "string", "format": "date-time"}
	},
	"required": ["name"],
	"additionalProperties": false,
	"$defs": {
		"Tree": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
	}
}`

// normalizedSchema decodes and normalises a schema text for these tests.
func normalizedSchema(t testing.TB, text string) (map[string]any, bool) {
	t.Helper()
	v, ok := decodeAny(t, text)
	m, isMap := v.(map[string]any)
	if !ok || !isMap {
		return nil, false
	}
	norm, err := NormalizeSchema(m)
	if err != nil {
		return nil, false
	}
	return norm, true
}

// eagerCompile compiles a normalised schema's full validator at once, as
// CompileSchema did for every schema before it compiled lazily.
func eagerCompile(norm map[string]any) (*Schema, error) {
	q, _ := compileQuick(norm, &patternSet{})
	s := &Schema{quick: q, patterns: &patternSet{}, normalized: norm}
	if _, err := s.full(); err != nil {
		return nil, err
	}
	return s, nil
}

// A schema the quick acceptor reads whole is compiled on the first call
// that needs the full validator, and then judges exactly as an eagerly
// compiled one: same errors, same paths.
func TestWholeSchemasCompileOnFirstUse(t *testing.T) {
	norm, ok := normalizedSchema(t, wholeTestSchema)
	if !ok {
		t.Fatal("test schema does not normalise")
	}
	lazy, err := CompileSchema(norm)
	if err != nil {
		t.Fatal(err)
	}
	if lazy.compiled != nil || lazy.normalized == nil {
		t.Fatal("a whole schema was compiled at registration")
	}
	// Valid arguments the quick acceptor passes never compile it.
	if err := lazy.validateJSON([]byte(`{"name":"abc"}`)); err != nil || lazy.compiled != nil {
		t.Fatalf("a quick-accepted call: %v, compiled %v", err, lazy.compiled != nil)
	}
	eager, err := eagerCompile(norm)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		`{}`, `{"name":"ABC"}`, `{"name":"a","count":101}`, `{"name":"a","tree":{"kids":[{"v":"x"}]}}`,
		`{"name":"a","extra":1}`, `{"name":"abc","count":1.0}`, `{"name":"a","map":{"a":"x"}}`,
	} {
		got, want := lazy.validateJSON([]byte(text)), eager.validateJSON([]byte(text))
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("%s: lazily compiled %v, eagerly %v", text, got, want)
		}
	}
	if lazy.compiled == nil || lazy.normalized != nil {
		t.Fatal("the full validator was not compiled on first use, or kept its source")
	}
}

// Malformed schemas fail at registration, lazily compiled or not: each is
// one the full compiler refuses, and the quick acceptor must not vouch for
// it.
func TestMalformedSchemasFailAtRegistration(t *testing.T) {
	for _, text := range []string{
		`{"properties":{"a":{"type":"nope"}}}`,
		`{"properties":{"a":{"type":["string","string"]}}}`,
		`{"properties":{"a":{}},"required":["a","a"]}`,
		`{"properties":{"a":{"description":5}}}`,
		`{"properties":{"a":{"title":["x"]}}}`,
		`{"properties":{"a":{"examples":"x"}}}`,
		`{"properties":{"a":{"readOnly":"yes"}}}`,
		`{"properties":{"a":{"format":1}}}`,
		`{"properties":{"a":{"minLength":-1}}}`,
		`{"properties":{"a":{"maxItems":1.5}}}`,
		`{"properties":{"a":{"pattern":"("}}}`,
		`{"properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		`{"properties":{"a":{"type":"string"}},"$defs":{"unused":{"type":"nope"}}}`,
		`{"properties":{"a":{"type":"string"}},"$defs":{"unused":{"minimum":"1"}}}`,
		`{"$id":5,"properties":{}}`,
		`{"properties":{"a":{"uniqueItems":1}}}`,
		`{"properties":{"a":{"enum":"x"}}}`,
		`{"properties":{"a":{"properties":{"b":{"type":7}}}}}`,
		`{"properties":{"a":{"anyOf":[]}}}`,
		`{"properties":{"a":{"anyOf":[5]}}}`,
		`{"properties":{"a":{"oneOf":{}}}}`,
		`{"properties":{"a":{"allOf":[{"type":"nope"}]}}}`,
		`{"properties":{"a":{"not":5}}}`,
		`{"properties":{"a":{"multipleOf":0}}}`,
		`{"properties":{"a":{"minimum":"1"}}}`,
	} {
		norm, ok := normalizedSchema(t, text)
		if !ok {
			t.Fatalf("%s does not normalise; the test wants schemas only the compiler refuses", text)
		}
		if _, err := eagerCompile(norm); err == nil {
			t.Fatalf("%s compiles; the test wants a malformed schema", text)
		}
		if _, whole := compileQuick(norm, &patternSet{}); whole {
			t.Errorf("the quick acceptor vouches for malformed %s", text)
		}
		if _, err := CompileSchema(norm); !errors.Is(err, ErrSchema) {
			t.Errorf("%s registered: %v", text, err)
		}
	}
}

// FuzzWholeQuickSchemaCompiles checks compileQuick's promise: a schema it
// reads whole compiles with the full compiler, so compiling it on first
// use never fails a call that registration would have refused.
func FuzzWholeQuickSchemaCompiles(f *testing.F) {
	for _, seed := range []string{
		quickTestSchema, wholeTestSchema,
		`{"properties":{"a":{"type":["string","null"],"description":"x","default":"y","examples":[1]}}}`,
		`{"properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"k":{"$ref":"#/$defs/n"}}}}}`,
		`{"properties":{"a":{"type":"array","items":{"enum":["x",null,true]},"minItems":1,"uniqueItems":true}}}`,
		`{"properties":{"a":{"type":"integer","minimum":-5,"exclusiveMaximum":10}},"required":["a"],"additionalProperties":false}`,
		`{"properties":{"a":{"pattern":"^[a-z]+$","minLength":1,"maxLength":9,"format":"email"}}}`,
		`{"properties":{"a":{"type":"string"}},"definitions":{"d":{"const":"x"}}}`,
		`{"properties":{"a":{"readOnly":true,"deprecated":false,"$comment":"c","title":"t"}}}`,
		`{"properties":{"a":{"type":"nope"}}}`, `{"properties":{"a":{"pattern":"("}}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		norm, ok := normalizedSchema(t, text)
		if !ok {
			return
		}
		if _, whole := compileQuick(norm, &patternSet{}); !whole {
			return
		}
		if _, err := eagerCompile(norm); err != nil {
			t.Fatalf("the quick acceptor vouched for %s, which does not compile: %v", text, err)
		}
	})
}

// What pydantic and Go's schema generators write for common parameters
// (Optional, unions, Literal of numbers, float bounds, nested models) is
// read whole, so agents of many distinct tools compile none of them at
// registration.
func TestGeneratedSchemasAreReadWhole(t *testing.T) {
	for _, text := range []string{
		`{"properties":{"ratio":{"anyOf":[{"type":"number"},{"type":"null"}],"default":null,"title":"Ratio"}},"title":"f"}`,
		`{"properties":{"flags":{"anyOf":[{"additionalProperties":{"type":"boolean"},"type":"object"},{"type":"null"}],"default":null}}}`,
		`{"properties":{"n":{"enum":[1,2,3],"type":"integer"},"c":{"const":1.5}}}`,
		`{"properties":{"p":{"type":"number","minimum":0.5,"exclusiveMaximum":1e3,"multipleOf":0.25}}}`,
		`{"properties":{"u":{"oneOf":[{"type":"string"},{"type":"integer"}]},"a":{"allOf":[{"$ref":"#/$defs/M"}]},"x":{"not":{"type":"null"}}},"$defs":{"M":{"properties":{"k":{"type":"string"}},"required":["k"],"type":"object","title":"M"}}}`,
	} {
		norm, ok := normalizedSchema(t, text)
		if !ok {
			t.Fatalf("%s does not normalise", text)
		}
		if _, whole := compileQuick(norm, &patternSet{}); !whole {
			t.Errorf("not read whole: %s", text)
		}
		if _, err := eagerCompile(norm); err != nil {
			t.Errorf("%s does not compile: %v", text, err)
		}
	}
}
