package effect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Canonical returns the canonical form of the JSON value in b: object keys
// sorted, no insignificant whitespace, numbers exactly as written (never
// through float64), no HTML escaping. Two inputs that differ only in key
// order or spacing have the same canonical form, so a replayed call whose
// arguments were re-encoded on the way still matches its record. Text
// already canonical is returned as it is (b itself, not a copy).
func Canonical(b []byte) (json.RawMessage, error) {
	if isCanonical(b) {
		return b, nil
	}
	return canonicalize(b)
}

// canonicalize is Canonical's full path: decode, then encode.
func canonicalize(b []byte) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: input is not JSON: %w", ErrInvalid, err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: input has data after its JSON value", ErrInvalid)
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: input: %w", ErrInvalid, err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte{'\n'}), nil
}

// isCanonical reports, without allocating, whether b is already in the
// form Canonical produces, so that the usual tool arguments (compact,
// ASCII, keys in order) skip a decode and an encode. It is conservative:
// anything unusual (whitespace, escapes, non-ASCII, a key out of order or
// repeated, deep nesting) answers false and takes the full path, which
// FuzzCanonicalFastPath checks against.
func isCanonical(b []byte) bool {
	c := canonScan{b: b}
	return c.value(0) && c.i == len(b)
}

type canonScan struct {
	b []byte
	i int
}

// maxCanonDepth bounds the scan's recursion; deeper input takes the full
// path, whose decoder has its own limit.
const maxCanonDepth = 64

func (c *canonScan) value(depth int) bool {
	if c.i >= len(c.b) || depth > maxCanonDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		c.i++
		if c.i < len(c.b) && c.b[c.i] == '}' {
			c.i++
			return true
		}
		var prev []byte
		for first := true; ; first = false {
			key, ok := c.str()
			if !ok || (!first && string(key) <= string(prev)) {
				return false
			}
			prev = key
			if c.i >= len(c.b) || c.b[c.i] != ':' {
				return false
			}
			c.i++
			if !c.value(depth + 1) {
				return false
			}
			if c.i >= len(c.b) {
				return false
			}
			if c.b[c.i] == '}' {
				c.i++
				return true
			}
			if c.b[c.i] != ',' {
				return false
			}
			c.i++
		}
	case ch == '[':
		c.i++
		if c.i < len(c.b) && c.b[c.i] == ']' {
			c.i++
			return true
		}
		for {
			if !c.value(depth+1) || c.i >= len(c.b) {
				return false
			}
			if c.b[c.i] == ']' {
				c.i++
				return true
			}
			if c.b[c.i] != ',' {
				return false
			}
			c.i++
		}
	case ch == '"':
		_, ok := c.str()
		return ok
	case ch == '-' || ('0' <= ch && ch <= '9'):
		return c.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(c.b)-c.i >= len(lit) && string(c.b[c.i:c.i+len(lit)]) == lit {
				c.i += len(lit)
				return true
			}
		}
		return false
	}
}

// str reads a string of printable ASCII without escapes (which encoding
// leaves exactly as it is) and returns its contents.
func (c *canonScan) str() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	start := c.i + 1
	for j := start; j < len(c.b); j++ {
		switch ch := c.b[j]; {
		case ch == '"':
			c.i = j + 1
			return c.b[start:j], true
		case ch < 0x20 || ch > 0x7e || ch == '\\':
			return nil, false
		}
	}
	return nil, false
}

// number reads a number in RFC 8259 grammar; encoding keeps its literal.
func (c *canonScan) number() bool {
	b, i := c.b, c.i
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	c.i = i
	return true
}
