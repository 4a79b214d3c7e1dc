package tool

import (
	"strings"
	"testing"
)

// checkArguments reports broken JSON as such, with encoding/json's
// message, even where a limit is met before the break.
func TestCheckArgumentsMessages(t *testing.T) {
	deep := strings.Repeat("[", MaxArgumentDepth+1)
	for _, tc := range []struct{ args, want string }{
		{`{"a":`, "must be valid JSON before execution: unexpected end of JSON input"},
		{`{"a" 1}`, "must be valid JSON before execution: invalid character '1' after object key"},
		{`{"a":` + deep, "must be valid JSON before execution"},
		{"{\"s\":\"\xff\",", "must be valid JSON before execution"},
		{`{"a":` + deep + strings.Repeat("]", MaxArgumentDepth+1) + `}`, "nest deeper than 128 levels"},
		{"{\"s\":\"\xff\"}", "not valid UTF-8"},
		{`{"n":` + strings.Repeat("1", MaxNumberLength+1) + `}`, "number longer than 4000"},
		{`[1]`, "must be a JSON object, got an array"},
		{` "x" `, "must be a JSON object, got a string"},
		{`true`, "must be a JSON object, got a boolean"},
		{`-1`, "must be a JSON object, got a number"},
	} {
		_, err := checkArguments([]byte(tc.args))
		if KindOf(err) != ErrorKindInvalidArguments || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkArguments(%.30q) = %v, want %q", tc.args, err, tc.want)
		}
	}
	for _, args := range []string{``, " \n", `null`, ` null `} {
		if raw, err := checkArguments([]byte(args)); err != nil || string(raw) != "{}" {
			t.Errorf("checkArguments(%q) = %s, %v; want {}", args, raw, err)
		}
	}
}

// The quick path reads any text without panicking and accepts none that
// is broken, truncated or beyond the argument limits.
func TestQuickSchemaRefusesMalformedText(t *testing.T) {
	s := compileTestSchema(t, quickTestSchema)
	valid := `{"name":"a","count":5,"tags":["x"],"any":{"k":[1,{"z":null}]},"tree":{"v":1,"kids":[{"v":2}]}}`
	if !s.quick.acceptsJSON([]byte(valid)) {
		t.Fatal("quick path rejected the valid text")
	}
	for i := range len(valid) {
		if s.quick.acceptsJSON([]byte(valid[:i])) {
			t.Errorf("quick path accepted truncated %s", valid[:i])
		}
	}
	for _, text := range []string{
		`{"name":"a"} x`, `{"name":"a",}`, `{"name":"a","any":[1,]}`, `{"name":"a","any":{"k" 1}}`, `{"name":"a","any":01}`,
		`{"name":"a","any":tru}`, `{"name":"a","count":5]`, "{\"name\":\"a\",\"any\":\"\xff\"}",
		`{"name":"a","any":` + strings.Repeat("[", MaxArgumentDepth) + strings.Repeat("]", MaxArgumentDepth) + `}`,
		`{"name":"a","num":` + strings.Repeat("1", MaxNumberLength+1) + `}`, `{"name":"a","tree":{"kids":[{"v":1}}}`,
	} {
		if s.quick.acceptsJSON([]byte(text)) {
			t.Errorf("quick path accepted %.60q", text)
		}
	}
}
