package openai

import (
	"encoding/json"
	"testing"
)

func TestStrictSchema(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"nil is an empty object", `null`,
			`{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{"every property required, optional ones nullable", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]}},"required":["a","b"],"additionalProperties":false}`},
		{"already nullable stays as is", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}}}`,
			`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`},
		{"type list gains null", `{"type":"object","properties":{"a":{"type":["string","integer"]}}}`,
			`{"type":"object","properties":{"a":{"type":["string","integer","null"]}},"required":["a"],"additionalProperties":false}`},
		{"enum gains null", `{"type":"object","properties":{"u":{"type":"string","enum":["c","f"]}}}`,
			`{"type":"object","properties":{"u":{"type":["string","null"],"enum":["c","f",null]}},"required":["u"],"additionalProperties":false}`},
		{"ref is wrapped", `{"type":"object","properties":{"p":{"$ref":"#/$defs/P","description":"the p"}},"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}}`,
			`{"type":"object","properties":{"p":{"anyOf":[{"$ref":"#/$defs/P","description":"the p"},{"type":"null"}],"description":"the p"}},"required":["p"],"additionalProperties":false,
			  "$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}}}`},
		{"nested objects and array items", `{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},"l":{"type":"array","items":{"type":"object","properties":{"v":{"type":"boolean"}}}}},"required":["o","l"]}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false},
			  "l":{"type":"array","items":{"type":"object","properties":{"v":{"type":["boolean","null"]}},"required":["v"],"additionalProperties":false}}},"required":["l","o"],"additionalProperties":false}`},
		{"annotations dropped", `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"T","type":"object","properties":{"a":{"type":"string","default":"x","examples":["y"],"title":"A"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`},
		{"unsupported keywords become notes", `{"type":"object","properties":{"s":{"type":"string","minLength":1,"maxLength":5,"description":"name"},"l":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":1}},"required":["s","l"]}`,
			`{"type":"object","properties":{"s":{"type":"string","description":"name (maxLength: 5; minLength: 1)"},"l":{"type":"array","items":{"type":"string"},"minItems":1,"description":"(uniqueItems: true)"}},"required":["l","s"],"additionalProperties":false}`},
		{"supported format kept, others noted", `{"type":"object","properties":{"d":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uri","pattern":"^h"}},"required":["d","u"]}`,
			`{"type":"object","properties":{"d":{"type":"string","format":"date-time"},"u":{"type":"string","pattern":"^h","description":"(format: uri)"}},"required":["d","u"],"additionalProperties":false}`},
		{"numbers keep their bounds", `{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMaximum":10,"multipleOf":0.5}},"required":["n"]}`,
			`{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMaximum":10,"multipleOf":0.5}},"required":["n"],"additionalProperties":false}`},
		{"oneOf becomes anyOf", `{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}]}},"required":["v"]}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}]}},"required":["v"],"additionalProperties":false}`},
		{"single allOf is merged", `{"type":"object","properties":{"p":{"allOf":[{"$ref":"#/$defs/P"}],"description":"d"}},"required":["p"],"$defs":{"P":{"type":"string"}}}`,
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/P","description":"d"}},"required":["p"],"additionalProperties":false,"$defs":{"P":{"type":"string"}}}`},
		{"open objects stay open (OpenAI rejects them clearly)", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string","maxLength":3}}},"required":["m"]}`,
			`{"type":"object","properties":{"m":{"type":"object","properties":{},"required":[],"additionalProperties":{"type":"string","description":"(maxLength: 3)"}}},"required":["m"],"additionalProperties":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in map[string]any
			if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(in)
			jsonEq(t, strictSchema(in), tc.want)
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("the input schema was modified: %s", after)
			}
		})
	}
}

func TestDropAddedNulls(t *testing.T) {
	schema := map[string]any{}
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{
		"a":{"type":"string"},"b":{"type":"string"},"n":{"type":["string","null"]},
		"o":{"type":"object","properties":{"x":{"type":"string"}}},
		"r":{"$ref":"#/$defs/R"},
		"l":{"type":"array","items":{"type":"object","properties":{"y":{"type":"integer"}}}}},
		"required":["a"],"$defs":{"R":{"type":"object","properties":{"z":{"type":"string"}}}}}`), &schema)
	for _, tc := range []struct{ in, want string }{
		{`{"a":"1","b":null}`, `{"a":"1"}`},
		{`{"a":null}`, `{"a":null}`}, // required: the model's own error, left for validation
		{`{"n":null}`, `{"n":null}`}, // null was allowed originally
		{`{"o":{"x":null},"r":{"z":null},"l":[{"y":null},{"y":1}]}`, `{"o":{},"r":{},"l":[{},{"y":1}]}`},
		{`{"a":"no nulls here"}`, `{"a":"no nulls here"}`},
		{`not json null`, `not json null`},
	} {
		if got := string(dropAddedNulls(schema, []byte(tc.in))); got != tc.want {
			var g, w any
			if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(tc.want), &w) != nil {
				t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
				continue
			}
			jsonEq(t, g, tc.want)
		}
	}
}

// Encoded tools are reused per schema map, never across definitions that
// differ beside it.
func TestEncodedToolsAreKeyedByDefinition(t *testing.T) {
	plain, strict := weatherTool(false), weatherTool(true)
	strict.Parameters = plain.Parameters // the same map
	a, _ := chatToolJSON(plain)
	b, _ := chatToolJSON(strict)
	renamed := plain
	renamed.Name = "other"
	c, _ := chatToolJSON(renamed)
	r, _ := responsesToolJSON(plain)
	again, _ := chatToolJSON(plain)
	if string(a) == string(b) || string(a) == string(c) || string(a) == string(r) || string(a) != string(again) {
		t.Fatalf("\n%s\n%s\n%s\n%s", a, b, c, r)
	}
}
