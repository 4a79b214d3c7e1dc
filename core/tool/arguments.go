package tool

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

var emptyObject = json.RawMessage(`{}`)

// checkArguments checks that a call's arguments are a JSON object within
// the argument limits (see MaxArgumentDepth) and returns the text to hand to the tool: empty and null arguments mean {}.
func checkArguments(raw json.RawMessage) (json.RawMessage, error) {
	first := skipSpace(raw, 0)
	if first == len(raw) {
		return emptyObject, nil
	}
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		if err == nil { // unreachable: Valid and Unmarshal agree
			err = errors.New("invalid JSON")
		}
		return nil, InvalidArguments("tool arguments must be valid JSON before execution: %v", err)
	}
	if err := checkLimits(raw); err != nil {
		return nil, err
	}
	switch raw[first] {
	case '{':
		return raw, nil
	case 'n': // null, the only valid text starting with n
		return emptyObject, nil
	}
	return nil, InvalidArguments("tool arguments must be a JSON object, got %s", jsonKind(raw[first]))
}

// decodeArguments is checkArguments followed by parseValidObject.
func decodeArguments(raw json.RawMessage) (map[string]any, json.RawMessage, error) {
	raw, err := checkArguments(raw)
	if err != nil {
		return nil, nil, err
	}
	return parseValidObject(raw), raw, nil
}

// parseValidObject decodes a JSON object text that json.Valid accepted,
// numbers as json.Number, exactly as encoding/json with UseNumber would.
func parseValidObject(raw []byte) map[string]any {
	p := validParser{b: raw, i: skipSpace(raw, 0)}
	return p.object()
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// jsonKind names the JSON type of a value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// validParser decodes JSON text that json.Valid accepted, so it never meets
// a syntax error. It is several times cheaper than encoding/json's decoder
// for the small objects tool arguments are, and produces the same values:
// map[string]any, []any, string, json.Number, bool and nil; the last of
// duplicate keys wins; invalid UTF-8 becomes U+FFFD.
// FuzzDecodeArgumentsMatchesEncodingJSON checks the equivalence.
type validParser struct {
	b []byte
	i int
}

func (p *validParser) value() any {
	p.i = skipSpace(p.b, p.i)
	switch p.b[p.i] {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.string()
	case 't':
		p.i += len("true")
		return true
	case 'f':
		p.i += len("false")
		return false
	case 'n':
		p.i += len("null")
		return nil
	default:
		return p.number()
	}
}

func (p *validParser) object() map[string]any {
	p.i++ // {
	m := map[string]any{}
	p.i = skipSpace(p.b, p.i)
	if p.b[p.i] == '}' {
		p.i++
		return m
	}
	for {
		p.i = skipSpace(p.b, p.i)
		k := p.string()
		p.i = skipSpace(p.b, p.i) + 1 // :
		m[k] = p.value()
		p.i = skipSpace(p.b, p.i)
		c := p.b[p.i]
		p.i++ // , or }
		if c == '}' {
			return m
		}
	}
}

func (p *validParser) array() []any {
	p.i++ // [
	a := []any{}
	p.i = skipSpace(p.b, p.i)
	if p.b[p.i] == ']' {
		p.i++
		return a
	}
	for {
		a = append(a, p.value())
		p.i = skipSpace(p.b, p.i)
		c := p.b[p.i]
		p.i++ // , or ]
		if c == ']' {
			return a
		}
	}
}

func (p *validParser) string() string {
	start := p.i // the opening quote
	p.i++
	escaped, nonASCII := false, false
	for {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			s := p.b[start+1 : p.i-1]
			if !escaped && (!nonASCII || utf8.Valid(s)) {
				return string(s)
			}
			// Escapes or invalid UTF-8: let encoding/json apply its rules.
			var out string
			_ = json.Unmarshal(p.b[start:p.i], &out)
			return out
		case c == '\\':
			escaped = true
			p.i += 2
		case c >= utf8.RuneSelf:
			nonASCII = true
			p.i++
		default:
			p.i++
		}
	}
}

func (p *validParser) number() json.Number {
	start := p.i
	for p.i < len(p.b) && isNumberByte(p.b[p.i]) {
		p.i++
	}
	return json.Number(p.b[start:p.i])
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
