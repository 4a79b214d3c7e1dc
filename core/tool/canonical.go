package tool

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// canonical returns a deep copy of v in the form the validator expects:
// every number a json.Number, every container a map[string]any or []any,
// as decoding v's JSON text with UseNumber would give. Trees of those
// containers, strings, booleans, nil and Go numbers are copied directly
// (a thousand tool schemas took tens of milliseconds through JSON);
// anything else goes through encoding/json.
func canonical(v map[string]any) (map[string]any, error) {
	if out, ok := plainCopy(v).(map[string]any); ok {
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out map[string]any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// notPlain is what plainCopy returns for a value it does not copy.
type notPlain struct{}

// plainCopy copies v as canonical does, or returns notPlain{}.
func plainCopy(v any) any {
	switch v := v.(type) {
	case nil, string, bool:
		return v
	case map[string]any:
		if v == nil {
			return nil // encoding/json writes a nil map as null
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			c := plainCopy(e)
			if _, bad := c.(notPlain); bad {
				return c
			}
			out[k] = c
		}
		return out
	case []any:
		if v == nil {
			return nil
		}
		out := make([]any, len(v))
		for i, e := range v {
			c := plainCopy(e)
			if _, bad := c.(notPlain); bad {
				return c
			}
			out[i] = c
		}
		return out
	case float64:
		if n, ok := jsonFloat(v); ok {
			return n
		}
	case int:
		return json.Number(strconv.Itoa(v))
	case int64:
		return json.Number(strconv.FormatInt(v, 10))
	}
	// json.Number (its text must be checked), other numeric types,
	// structs, typed maps and slices: encoding/json decides.
	return notPlain{}
}

// jsonFloat writes f as encoding/json does (ES6 number formatting);
// false for NaN and infinities, which JSON cannot hold.
func jsonFloat(f float64) (json.Number, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return json.Number(b), true
}

// appendKey appends a text of a canonical value that tells it apart from
// every other (a cache key, not JSON): map keys sorted, strings quoted.
func appendKey(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		if v {
			return append(b, 't')
		}
		return append(b, 'f')
	case string:
		return strconv.AppendQuote(append(b, 's'), v)
	case json.Number:
		return strconv.AppendQuote(append(b, '#'), string(v))
	case []any:
		b = append(b, '[')
		for _, e := range v {
			b = append(appendKey(b, e), ',')
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for _, k := range keys {
			b = strconv.AppendQuote(b, k)
			b = append(appendKey(append(b, ':'), v[k]), ',')
		}
		return append(b, '}')
	}
	return append(b, '?') // not canonical: never reached for canonical values
}
