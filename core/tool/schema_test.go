package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestNormalizeSchema(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"nil means no arguments", nil, `{"type":"object","properties":{}}`},
		{"missing type becomes object", map[string]any{"properties": map[string]any{}}, `{"type":"object","properties":{}}`},
		{"missing properties inserted", map[string]any{"type": "object"}, `{"type":"object","properties":{}}`},
		{"$schema removed", map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"},
			`{"type":"object","properties":{}}`},
		{"other keys kept", map[string]any{
			"properties":           map[string]any{"a": map[string]any{"type": "integer", "maximum": 10}},
			"required":             []any{"a"},
			"additionalProperties": false,
		}, `{"type":"object","properties":{"a":{"type":"integer","maximum":10}},"required":["a"],"additionalProperties":false}`},
		{"boolean property schemas allowed", map[string]any{"properties": map[string]any{"any": true}},
			`{"type":"object","properties":{"any":true}}`},
		{"additionalProperties schema allowed", map[string]any{"additionalProperties": map[string]any{"type": "string"}},
			`{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`},
		{"required given as []string", map[string]any{
			"properties": map[string]any{"a": map[string]any{}}, "required": []string{"a"}},
			`{"type":"object","properties":{"a":{}},"required":["a"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before string
			if tt.in != nil {
				before = mustJSON(t, tt.in)
			}
			got, err := tool.NormalizeSchema(tt.in)
			if err != nil {
				t.Fatalf("NormalizeSchema: %v", err)
			}
			if !jsonEqual(t, got, json.RawMessage(tt.want)) {
				t.Fatalf("got %s, want %s", mustJSON(t, got), tt.want)
			}
			if tt.in != nil && mustJSON(t, tt.in) != before {
				t.Fatalf("input was modified: %s, was %s", mustJSON(t, tt.in), before)
			}
		})
	}
}

func TestNormalizeSchemaUsesJSONNumbers(t *testing.T) {
	got, err := tool.NormalizeSchema(map[string]any{"properties": map[string]any{"n": map[string]any{"maximum": 10}}})
	if err != nil {
		t.Fatal(err)
	}
	max := got["properties"].(map[string]any)["n"].(map[string]any)["maximum"]
	if max != json.Number("10") {
		t.Fatalf("maximum = %#v, want json.Number(10)", max)
	}
}

func TestMalformedSchemasAreRejected(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		want   string
	}{
		{"non-object type", map[string]any{"type": "string"}, `type must be "object"`},
		{"array type", map[string]any{"type": []any{"object", "null"}}, `type must be "object"`},
		{"null type", map[string]any{"type": nil}, `type must be "object"`},
		{"properties not an object", map[string]any{"properties": []any{"a"}}, "properties must be an object"},
		{"property not a schema", map[string]any{"properties": map[string]any{"a": "string"}}, `property "a" must be a schema object`},
		{"required not a list", map[string]any{"properties": map[string]any{"a": map[string]any{}}, "required": "a"},
			"required must be a list"},
		{"required holds a non-string", map[string]any{"properties": map[string]any{"a": map[string]any{}}, "required": []any{1}},
			"required must be a list"},
		{"required names an unknown property", map[string]any{"properties": map[string]any{"a": map[string]any{}}, "required": []any{"b"}},
			`required names "b"`},
		{"additionalProperties of the wrong type", map[string]any{"additionalProperties": "no"},
			"additionalProperties must be a boolean or a schema"},
		{"non-JSON value (func)", map[string]any{"properties": map[string]any{"a": map[string]any{"default": func() {}}}},
			"not JSON-serialisable"},
		{"non-JSON value (NaN)", map[string]any{"properties": map[string]any{"a": map[string]any{"maximum": math.NaN()}}},
			"not JSON-serialisable"},
		{"non-JSON value (chan)", map[string]any{"x": make(chan int)}, "not JSON-serialisable"},
		{"invalid keyword value (compile)", map[string]any{"properties": map[string]any{"a": map[string]any{"type": "strin"}}}, ""},
		{"invalid pattern (compile)", map[string]any{"properties": map[string]any{"a": map[string]any{"pattern": "("}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.NewRegistry(tool.New("bad", "", tt.schema, okHandler))
			if err == nil {
				t.Fatal("registration succeeded, want ErrSchema")
			}
			if !errors.Is(err, tool.ErrSchema) {
				t.Fatalf("error %v does not wrap ErrSchema", err)
			}
			if !strings.Contains(err.Error(), `"bad"`) {
				t.Fatalf("error %q does not name the tool", err)
			}
			if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestRegistryAddStopsAtFirstBadTool(t *testing.T) {
	var r tool.Registry
	err := r.Add(tool.New("a", "", nil, okHandler), tool.New("b", "", map[string]any{"type": "array"}, okHandler),
		tool.New("c", "", nil, okHandler))
	if !errors.Is(err, tool.ErrSchema) {
		t.Fatalf("Add: %v, want ErrSchema", err)
	}
	if got := r.Names(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("names = %v, want [a]", got)
	}
}

// A schema must never make registration read local files: schemas may come
// from remote MCP servers.
func TestSchemaRefsDoNotLoadFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "inner.json")
	if err := os.WriteFile(p, []byte(`{"type":"string","pattern":"^secret-file$"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"properties": map[string]any{"a": map[string]any{"$ref": "file://" + filepath.ToSlash(p)}}}
	_, err := tool.NewRegistry(tool.New("ref", "", schema, okHandler))
	if !errors.Is(err, tool.ErrSchema) {
		t.Fatalf("registration with a file $ref: %v, want ErrSchema", err)
	}
}

func TestToolNamesNeedNoURLSyntax(t *testing.T) {
	for _, name := range []string{"a b", "a#b", "a%zz", "a?b", "ns/tool", "ünï"} {
		if _, err := tool.NewRegistry(tool.New(name, "", map[string]any{"properties": map[string]any{"x": map[string]any{"type": "string"}}}, okHandler)); err != nil {
			t.Errorf("register %q: %v", name, err)
		}
	}
}

func TestSchemaValidateNamesPathsWithoutValues(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"token":  map[string]any{"type": "string", "pattern": "^tok_[a-z]+$"},
			"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
			"email":  map[string]any{"type": "string", "format": "email"},
			"nested": map[string]any{"type": "object", "properties": map[string]any{"a/b~c": map[string]any{"type": "string", "maxLength": 3}}},
			"mode":   map[string]any{"enum": []any{"fast", "slow"}},
		},
		"required": []any{"token"},
	}
	norm, err := tool.NormalizeSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tool.CompileSchema(norm)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"token": "tok_abc", "limit": json.Number("5")}); err != nil {
		t.Fatalf("valid arguments rejected: %v", err)
	}
	err = s.Validate(map[string]any{
		"token":  secret,
		"limit":  json.Number("987654"),
		"nested": map[string]any{"a/b~c": secret},
		"mode":   secret,
	})
	if KindOfErr := tool.KindOf(err); KindOfErr != tool.ErrorKindInvalidArguments {
		t.Fatalf("kind = %q, want invalid_arguments (%v)", KindOfErr, err)
	}
	msg := err.Error()
	for _, want := range []string{"/token", "/limit", "/nested/a~1b~0c", "/mode", "pattern", "<= 100"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not contain %q", msg, want)
		}
	}
	for _, leak := range []string{secret, "987654"} {
		if strings.Contains(msg, leak) {
			t.Errorf("message %q echoes the argument value %q", msg, leak)
		}
	}
}

// The registry validates every call against the schema before the tool
// runs, and the return names the path but never the value.
func TestExecuteSchemaMismatch(t *testing.T) {
	const secret = "hunter2-super-secret"
	var ran bool
	f := tool.New("search", "", map[string]any{
		"properties": map[string]any{
			"query":  map[string]any{"type": "string"},
			"limit":  map[string]any{"type": "integer", "maximum": 50},
			"apikey": map[string]any{"type": "string", "pattern": "^key_[0-9]{4}$"},
		},
		"required": []any{"query"},
	}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran = true
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	tests := []struct {
		name, args string
		want       []string
	}{
		{"limit too large", `{"query":"q","limit":500}`, []string{"/limit"}},
		{"limit wrong type", `{"query":"q","limit":"ten-ish-value"}`, []string{"/limit", "want integer"}},
		{"missing required", `{"limit":5}`, []string{"missing property", "query"}},
		{"secret pattern", `{"query":"q","apikey":"` + secret + `"}`, []string{"/apikey", "pattern"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ret := r.Execute(context.Background(), nil, call("c1", "search", tt.args))
			wantKind(t, ret, tool.ErrorKindInvalidArguments)
			if ran {
				t.Fatal("the tool ran despite invalid arguments")
			}
			if !ret.IsError {
				t.Fatal("invalid_arguments must be is_error")
			}
			msg := content(t, ret)["message"].(string)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			whole := mustJSON(t, ret)
			if strings.Contains(whole, secret) || strings.Contains(whole, "500") || strings.Contains(whole, "ten-ish") {
				t.Errorf("return echoes argument values: %s", whole)
			}
		})
	}
}

func TestEmptySchemaIsTheNilDefault(t *testing.T) {
	got, err := tool.NormalizeSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := tool.EmptySchema(), tool.EmptySchema()
	if !reflect.DeepEqual(got, a) || !reflect.DeepEqual(a, map[string]any{"type": "object", "properties": map[string]any{}}) {
		t.Fatalf("NormalizeSchema(nil) = %v, EmptySchema = %v", got, a)
	}
	a["type"] = "changed"
	if b["type"] != "object" || tool.EmptySchema()["type"] != "object" {
		t.Fatal("EmptySchema shares its map")
	}
}
