package model_test

import (
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Every example validates against its schema (patterns aside, see
// ExampleArguments).
func TestExampleArgumentsSatisfyTheirSchema(t *testing.T) {
	cases := []string{
		`{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["n","s"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":9}},"required":["n"]}`,
		`{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0.5}},"required":["x"]}`,
		`{"type":"object","properties":{"k":{"type":"integer","exclusiveMinimum":2}},"required":["k"]}`,
		`{"type":"object","properties":{"s":{"type":"string","minLength":4}},"required":["s"],"additionalProperties":false}`,
		`{"type":"object","properties":{"c":{"enum":["red","green"]}},"required":["c"]}`,
		`{"type":"object","properties":{"c":{"const":7}},"required":["c"]}`,
		`{"type":"object","properties":{"d":{"type":"string","format":"date"},"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uuid"}},"required":["d","e","u"]}`,
		`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"integer"},"minItems":2}},"required":["xs"]}`,
		`{"type":"object","properties":{"o":{"anyOf":[{"type":"null"},{"type":"string"}]}},"required":["o"]}`,
		`{"type":"object","properties":{"o":{"type":["integer","null"]}},"required":["o"]}`,
		`{"type":"object","properties":{"b":{"type":"boolean"},"opt":{"type":"string"}},"required":["b"]}`,
		`{"type":"object","$defs":{"City":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},"properties":{"city":{"$ref":"#/$defs/City"}},"required":["city"]}`,
		`{"type":"object","$defs":{"Node":{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}}}},"properties":{"head":{"$ref":"#/$defs/Node"}},"required":["head"]}`,
		`{"type":"object","properties":{"m":{"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}]}},"required":["m"]}`,
		`{"type":"object","properties":{"t":{"type":"string","default":"x"}},"required":["t"]}`,
		`{}`,
	}
	for _, c := range cases {
		var raw map[string]any
		if err := json.Unmarshal([]byte(c), &raw); err != nil {
			t.Fatal(err)
		}
		norm, err := tool.NormalizeSchema(raw)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		schema, err := tool.CompileSchema(norm)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		ex := model.ExampleArguments(norm)
		b, err := json.Marshal(ex)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var decoded any
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(decoded); err != nil {
			t.Errorf("%s: example %s does not validate: %v", c, b, err)
		}
	}
}

func TestExampleArgumentsPickTheBoundsAndTheFirstChoice(t *testing.T) {
	var s map[string]any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":3},"c":{"enum":["red","green"]},"s":{"type":"string","minLength":3}},"required":["n","c","s"]}`), &s)
	b, _ := json.Marshal(model.ExampleArguments(s))
	if string(b) != `{"c":"red","n":3,"s":"aaa"}` {
		t.Fatalf("example = %s", b)
	}
}
