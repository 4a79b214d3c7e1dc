package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// OpenAI's structured outputs accept a subset of JSON Schema in strict mode
// (platform.openai.com/docs/guides/structured-outputs, "Supported
// schemas"): every object lists all its properties in required and sets
// additionalProperties to false; an optional property is expressed as a
// nullable one; string formats are limited to the list below; and some
// keywords are rejected outright. strictSchema rewrites a schema to that
// subset. A constraint strict mode cannot enforce is not silently lost: it
// is appended to the description, where the model still reads it (the
// runtime validates the arguments against the original schema anyway).

// strictFormats are the string formats strict mode supports.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// strictUnsupported are keywords strict mode rejects; they become notes.
var strictUnsupported = map[string]bool{
	"minLength": true, "maxLength": true, "patternProperties": true, "unevaluatedProperties": true,
	"propertyNames": true, "minProperties": true, "maxProperties": true, "unevaluatedItems": true,
	"contains": true, "minContains": true, "maxContains": true, "uniqueItems": true, "not": true,
	"if": true, "then": true, "else": true, "dependentRequired": true, "dependentSchemas": true,
	"dependencies": true, "contentEncoding": true, "contentMediaType": true, "prefixItems": true,
}

// strictDropped are annotations strict mode rejects or does not need; they
// carry no constraint the model must know ("default" is meaningless once
// every property is required).
var strictDropped = map[string]bool{
	"default": true, "$schema": true, "$id": true, "examples": true, "discriminator": true,
	"$comment": true, "readOnly": true, "writeOnly": true, "deprecated": true, "title": true,
}

// strictSchema returns the strict form of schema; schema is not modified
// (schemas are shared once registered). A nil schema is an object without
// properties.
func strictSchema(schema map[string]any) map[string]any {
	if schema == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{}, "additionalProperties": false}
	}
	return strictNode(schema)
}

func strictNode(s map[string]any) map[string]any {
	out := make(map[string]any, len(s)+2)
	var notes []string
	for k, v := range s {
		switch {
		case k == "properties":
			props, _ := v.(map[string]any)
			np := make(map[string]any, len(props))
			for name, ps := range props {
				np[name] = strictValue(ps)
			}
			out[k] = np
		case k == "$defs" || k == "definitions":
			defs, _ := v.(map[string]any)
			nd := make(map[string]any, len(defs))
			for name, ds := range defs {
				nd[name] = strictValue(ds)
			}
			out[k] = nd
		case k == "items":
			out[k] = strictValue(v)
		case k == "anyOf" || k == "oneOf":
			// Strict mode has anyOf only; for the alternatives of one value
			// the two differ only when several match, which the runtime's
			// validation of the original schema still catches.
			out["anyOf"] = strictList(v)
		case k == "allOf":
			out[k] = strictList(v)
		case k == "additionalProperties":
			// An open object (a map) has no strict form; it is kept, so
			// OpenAI rejects the schema with a clear error rather than the
			// tool silently accepting no keys at all.
			if b, ok := v.(bool); !ok || b {
				out[k] = strictValue(v)
			}
		case k == "format":
			if f, _ := v.(string); !strictFormats[f] {
				notes = append(notes, fmt.Sprintf("format: %v", v))
				continue
			}
			out[k] = v
		case strictUnsupported[k]:
			notes = append(notes, fmt.Sprintf("%s: %s", k, compactJSON(v)))
		case strictDropped[k]:
		default:
			out[k] = v
		}
	}
	// allOf of a single schema (what generators emit to attach a
	// description to a $ref) is merged into its parent: strict mode has no
	// allOf.
	if all, ok := out["allOf"].([]any); ok && len(all) == 1 {
		if only, ok := all[0].(map[string]any); ok {
			delete(out, "allOf")
			for k, v := range only {
				if _, taken := out[k]; !taken {
					out[k] = v
				}
			}
		}
	}
	if isObjectSchema(out) {
		props, _ := out["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			out["properties"] = props
		}
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		} else if req, ok := s["required"].([]string); ok {
			for _, name := range req {
				required[name] = true
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		all := make([]any, len(names))
		for i, name := range names {
			all[i] = name
			if !required[name] {
				props[name] = nullable(props[name])
			}
		}
		out["required"] = all
		if _, open := out["additionalProperties"]; !open {
			out["additionalProperties"] = false
		}
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		desc, _ := out["description"].(string)
		note := "(" + strings.Join(notes, "; ") + ")"
		if desc != "" {
			desc += " " + note
		} else {
			desc = note
		}
		out["description"] = desc
	}
	return out
}

func strictValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		return strictNode(m)
	}
	if b, ok := v.(bool); ok && b {
		// "true" accepts anything; strict mode needs a typed schema, the
		// closest being any JSON text.
		return map[string]any{"type": "string", "description": "any value, as JSON text"}
	}
	return v
}

func strictList(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = strictValue(e)
	}
	return out
}

func isObjectSchema(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	_, hasProps := s["properties"]
	return hasProps
}

// nullable returns schema v accepting null as well.
func nullable(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if allowsNull(s) {
		return s
	}
	out := make(map[string]any, len(s)+1)
	for k, x := range s {
		out[k] = x
	}
	switch t := s["type"].(type) {
	case string:
		out["type"] = []any{t, "null"}
		if enum, ok := s["enum"].([]any); ok {
			out["enum"] = append(slices.Clip(enum), nil)
		}
		return out
	case []any:
		out["type"] = append(slices.Clip(t), "null")
		if enum, ok := s["enum"].([]any); ok {
			out["enum"] = append(slices.Clip(enum), nil)
		}
		return out
	}
	if alts, ok := s["anyOf"].([]any); ok {
		out["anyOf"] = append(slices.Clip(alts), map[string]any{"type": "null"})
		return out
	}
	// A $ref, an enum or a const without a type: wrap it, keeping the
	// description beside the alternatives.
	wrapped := map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	if d, ok := s["description"]; ok {
		wrapped["description"] = d
	}
	return wrapped
}

// allowsNull reports whether s accepts null at its top level.
func allowsNull(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		if t == "null" {
			return true
		}
	case []any:
		if slices.Contains(t, any("null")) {
			return true
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && allowsNull(m) {
					return true
				}
			}
		}
	}
	return false
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// dropAddedNulls undoes, in the arguments of a strict tool's call, what
// strictSchema added: an optional property the model had to fill with null
// (because strict mode requires every property) is removed when the
// original schema does not accept null there, so the arguments validate
// against the original schema and the tool sees the property as absent.
// Arguments without a null, or not a JSON object, are returned unchanged.
func dropAddedNulls(schema map[string]any, args []byte) []byte {
	if schema == nil || !bytes.Contains(args, []byte("null")) {
		return args
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return args
	}
	if !dropNulls(schema, schema, v, 0) {
		return args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return out
}

func dropNulls(root, s map[string]any, v any, depth int) bool {
	if depth > 64 || s == nil {
		return false
	}
	if ref, ok := s["$ref"].(string); ok {
		s = resolveRef(root, ref)
		if s == nil {
			return false
		}
	}
	changed := false
	switch val := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		} else if req, ok := s["required"].([]string); ok {
			for _, name := range req {
				required[name] = true
			}
		}
		for name, x := range val {
			ps, _ := props[name].(map[string]any)
			if x == nil {
				if !required[name] && (ps == nil || !allowsNull(ps)) {
					delete(val, name)
					changed = true
				}
				continue
			}
			if ps != nil && dropNulls(root, ps, x, depth+1) {
				changed = true
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for _, x := range val {
				if dropNulls(root, items, x, depth+1) {
					changed = true
				}
			}
		}
	}
	return changed
}

// resolveRef resolves a local reference ("#/$defs/Name").
func resolveRef(root map[string]any, ref string) map[string]any {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := root[strings.Trim(prefix[1:], "/")].(map[string]any)
			d, _ := defs[name].(map[string]any)
			return d
		}
	}
	if ref == "#" {
		return root
	}
	return nil
}
