package model

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
)

// maxExampleDepth bounds ExampleArguments on recursive schemas (a $ref that
// refers to itself): past it, an object is {} and an array [].
const maxExampleDepth = 16

// ExampleArguments returns a small value that satisfies schema, for models
// that call tools without a script (see NewAutoTestModel): every required
// property, strings of their minimum length ("a" repeated, or a value of
// their format), numbers at their lower bound, the first enum value or
// alternative. Patterns are not matched: a tool whose schema needs one
// gets "a", and the runtime's validation answers like a model's mistake.
func ExampleArguments(schema map[string]any) any {
	return example(schema, schema, 0)
}

func example(s, root map[string]any, depth int) any {
	if s == nil {
		return map[string]any{}
	}
	if v, ok := s["const"]; ok {
		return v
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if v, ok := s["default"]; ok {
		return v
	}
	if ref, ok := s["$ref"].(string); ok {
		if depth >= maxExampleDepth {
			return map[string]any{}
		}
		return example(resolveRef(ref, root), root, depth+1)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[key].([]any); ok && len(alts) > 0 {
			// The first alternative that is not null: null says little.
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && m["type"] != "null" {
					return example(m, root, depth+1)
				}
			}
			m, _ := alts[0].(map[string]any)
			return example(m, root, depth+1)
		}
	}
	if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, a := range all {
			if m, ok := a.(map[string]any); ok {
				for k, v := range m {
					merged[k] = v
				}
			}
		}
		return example(merged, root, depth+1)
	}
	switch schemaType(s) {
	case "object":
		return exampleObject(s, root, depth)
	case "array":
		n := intKeyword(s, "minItems")
		items, _ := s["items"].(map[string]any)
		out := make([]any, 0, n)
		for i := 0; i < n && depth < maxExampleDepth; i++ {
			out = append(out, example(items, root, depth+1))
		}
		return out
	case "string":
		return exampleString(s)
	case "integer":
		return math.Ceil(lowerBound(s))
	case "number":
		return lowerBound(s)
	case "boolean":
		return false
	case "null":
		return nil
	}
	if _, ok := s["properties"]; ok {
		return exampleObject(s, root, depth)
	}
	return "a"
}

func exampleObject(s, root map[string]any, depth int) map[string]any {
	out := map[string]any{}
	if depth >= maxExampleDepth {
		return out
	}
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	names := make([]string, 0, len(required))
	for _, r := range required {
		if name, ok := r.(string); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		out[name] = example(p, root, depth+1)
	}
	return out
}

func exampleString(s map[string]any) string {
	switch s["format"] {
	case "date":
		return "2024-01-01"
	case "date-time":
		return "2024-01-01T00:00:00Z"
	case "time":
		return "00:00:00Z"
	case "email":
		return "a@example.com"
	case "uri", "url":
		return "https://example.com"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	}
	return strings.Repeat("a", max(1, intKeyword(s, "minLength")))
}

// lowerBound is the smallest number the schema's bounds allow, or 0.
func lowerBound(s map[string]any) float64 {
	if v, ok := number(s["minimum"]); ok {
		return v
	}
	if v, ok := number(s["exclusiveMinimum"]); ok {
		if schemaType(s) == "integer" {
			return math.Floor(v) + 1
		}
		return v + 1
	}
	if v, ok := number(s["maximum"]); ok && v < 0 {
		return v
	}
	return 0
}

func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		// ["string", "null"]: the first that is not null.
		for _, x := range t {
			if name, ok := x.(string); ok && name != "null" {
				return name
			}
		}
	}
	return ""
}

func intKeyword(s map[string]any, key string) int {
	v, _ := number(s[key])
	if v < 0 || v > 64 {
		return 0 // a huge minimum is not worth an example
	}
	return int(v)
}

// resolveRef follows a local reference ("#/$defs/Name").
func resolveRef(ref string, root map[string]any) map[string]any {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = root
	for _, seg := range strings.Split(path, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}

// number reads a schema keyword's number: float64 from encoding/json,
// json.Number from a schema decoded with UseNumber, or a Go integer.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
