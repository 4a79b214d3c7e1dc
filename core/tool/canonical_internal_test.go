package tool

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// roundTrip is canonical's general path: v's JSON text decoded with
// UseNumber.
func roundTrip(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The direct copy gives exactly what the JSON round trip gives.
func TestPlainCopyMatchesJSON(t *testing.T) {
	v := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "integer", "minimum": float64(0), "maximum": 1e21, "default": 3},
			"b": map[string]any{"enum": []any{"x", nil, true, math.Copysign(0, -1), 1e-7, 0.000001, 123456789.125, 5e-324, int64(-9)}},
			"c": map[string]any{"description": "é \"q\" \u2028 <>&", "examples": []any{math.MaxFloat64, 1e20, 0.1}},
		},
		"required": []any{"a"},
		"empty":    map[string]any{},
		"none":     []any{},
	}
	got, err := canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := roundTrip(t, v); !reflect.DeepEqual(any(got), want) {
		t.Fatalf("direct copy\n%#v\nJSON round trip\n%#v", got, want)
	}
	// Values it leaves to encoding/json, which still canonicalises them.
	for _, odd := range []map[string]any{
		{"n": json.Number("1.50")}, {"n": float32(0.1)}, {"s": []string{"a"}}, {"m": map[string]string{"a": "b"}},
		{"u": uint8(3)}, {"p": struct{ A int }{1}},
	} {
		if _, bad := plainCopy(odd).(notPlain); !bad {
			t.Errorf("%#v copied directly", odd)
		}
		got, err := canonical(odd)
		if err != nil {
			t.Fatal(err)
		}
		if want := roundTrip(t, odd); !reflect.DeepEqual(any(got), want) {
			t.Errorf("%#v: %#v, want %#v", odd, got, want)
		}
	}
	if _, err := canonical(map[string]any{"x": math.NaN()}); err == nil {
		t.Error("NaN canonicalised")
	}
}

// FuzzJSONFloatMatchesEncodingJSON checks jsonFloat's formatting against
// encoding/json's for any float64.
func FuzzJSONFloatMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []float64{0, math.Copysign(0, -1), 1, 0.1, 1e-6, 1e-7, 1e20, 1e21, 123.456e-10, math.MaxFloat64, 5e-324} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		n, ok := jsonFloat(x)
		b, err := json.Marshal(x)
		if ok != (err == nil) {
			t.Fatalf("%v: jsonFloat ok %v, encoding/json error %v", x, ok, err)
		}
		if ok && string(n) != string(b) {
			t.Fatalf("%v: jsonFloat %s, encoding/json %s", x, n, b)
		}
	})
}

// Cache keys tell apart values that differ in type, nesting or text.
func TestAppendKeyTellsValuesApart(t *testing.T) {
	values := []any{
		nil, true, false, "", "a", `a",`, json.Number("1"), json.Number("1.0"), "1",
		[]any{}, []any{"a"}, []any{"a", "b"}, []any{[]any{"a"}}, map[string]any{},
		map[string]any{"a": "b"}, map[string]any{"a": []any{"b"}}, map[string]any{"a": "b", "c": nil},
		map[string]any{`a":"b`: nil}, map[string]any{"a": map[string]any{"b": nil}},
	}
	seen := map[string]int{}
	for i, v := range values {
		k := string(appendKey(nil, v))
		if j, dup := seen[k]; dup {
			t.Fatalf("values %d and %d share the key %s", j, i, k)
		}
		seen[k] = i
	}
	a := map[string]any{"x": json.Number("1"), "y": []any{"z"}}
	b := map[string]any{"y": []any{"z"}, "x": json.Number("1")}
	if string(appendKey(nil, a)) != string(appendKey(nil, b)) {
		t.Fatal("equal maps have different keys")
	}
}
