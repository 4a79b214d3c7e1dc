package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// decimalPattern is the pattern pydantic gives a decimal.Decimal parameter
// sent as a string; Go's regexp rejects its look-ahead.
const decimalPattern = `^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$`

func stringTool(t *testing.T, prop map[string]any) *tool.Registry {
	t.Helper()
	return mustRegistry(t, tool.New("t", "", map[string]any{
		"properties": map[string]any{"v": prop},
		"required":   []any{"v"},
	}, okHandler))
}

func TestPatternsUseECMAScriptSyntax(t *testing.T) {
	for _, tc := range []struct {
		pattern      string
		valid, wrong []string
	}{
		{decimalPattern, []string{"1.5", "-0.25", "+7", "100"}, []string{"-.", "1.2.3", "abc", "+"}},
		// Look-ahead: at least one digit among letters and digits.
		{`^(?=.*\d)[a-z\d]+$`, []string{"abc1", "9"}, []string{"abc", "ab-1"}},
		// Look-behind and back-references.
		{`^(?<!x)(a)\1$`, []string{"aa"}, []string{"ab"}},
		// ECMA-262 \s includes NBSP; RE2's does not.
		{`^\s$`, []string{"\u00a0", " "}, []string{"x"}},
		// ECMA-262 . excludes \r; RE2's matches it.
		{`^.$`, []string{"a", "\U0001F600"}, []string{"\r", "\n"}},
		// \u escapes (RE2 has none).
		{`^\u00e9\u{1F600}$`, []string{"é\U0001F600"}, []string{"e"}},
	} {
		r := stringTool(t, map[string]any{"type": "string", "pattern": tc.pattern})
		for _, v := range tc.valid {
			if ret := r.Execute(context.Background(), nil, call("1", "t", jsonObject("v", v))); ret.IsError {
				t.Errorf("pattern %q rejected %q: %v", tc.pattern, v, ret.Content)
			}
		}
		for _, v := range tc.wrong {
			ret := r.Execute(context.Background(), nil, call("1", "t", jsonObject("v", v)))
			if !ret.IsError {
				t.Fatalf("pattern %q accepted %q", tc.pattern, v)
			}
			wantKind(t, ret, tool.ErrorKindInvalidArguments)
			if msg := content(t, ret)["message"].(string); !strings.Contains(msg, "does not match pattern") {
				t.Errorf("pattern %q on %q: message %q", tc.pattern, v, msg)
			}
		}
	}
}

func TestPatternPropertiesUseECMAScriptSyntax(t *testing.T) {
	r := mustRegistry(t, tool.New("t", "", map[string]any{
		"patternProperties":    map[string]any{`^(?=[a-z])\w+$`: map[string]any{"type": "integer"}},
		"additionalProperties": false,
	}, okHandler))
	if ret := r.Execute(context.Background(), nil, call("1", "t", `{"abc":1}`)); ret.IsError {
		t.Fatalf("valid call rejected: %v", ret.Content)
	}
	for _, args := range []string{`{"abc":"x"}`, `{"1bc":1}`} {
		wantKind(t, r.Execute(context.Background(), nil, call("1", "t", args)), tool.ErrorKindInvalidArguments)
	}
}

func TestInvalidPatternFailsRegistration(t *testing.T) {
	for _, schema := range []map[string]any{
		{"properties": map[string]any{"v": map[string]any{"type": "string", "pattern": "(?P<name>x)"}}},
		{"properties": map[string]any{"v": map[string]any{"type": "string", "pattern": "[a-"}}},
		{"patternProperties": map[string]any{"(": map[string]any{}}},
	} {
		_, err := tool.NewRegistry(tool.New("bad", "", schema, okHandler))
		if !errors.Is(err, tool.ErrSchema) {
			t.Fatalf("error %v does not wrap ErrSchema", err)
		}
		if !strings.Contains(err.Error(), "not a valid ECMA-262 regular expression") || !strings.Contains(err.Error(), "bad") {
			t.Errorf("unclear error: %v", err)
		}
		if strings.Contains(err.Error(), "(?P<") != strings.Contains(err.Error(), "writes a named group (?<name>...)") {
			t.Errorf("named-group hint: %v", err)
		}
	}
}

// A catastrophically backtracking pattern fails the call once the match
// exceeds PatternMatchTimeout, on the quick path, the full validator and
// patternProperties alike; nothing hangs, and the message names the
// pattern, never the value.
func TestCatastrophicPatternIsBoundedByTimeout(t *testing.T) {
	evil := strings.Repeat("a", 64) + "!"
	for name, schema := range map[string]map[string]any{
		"pattern": {"properties": map[string]any{"v": map[string]any{"type": "string", "pattern": `^(a+)+$`}}},
		// The other keyword keeps the call off the quick path.
		"full": {"properties": map[string]any{"v": map[string]any{"type": "string", "pattern": `^(a+)+$`, "not": map[string]any{"const": 1}}}},
		// A key the pattern does not match would be accepted: a timeout
		// must not count as "does not match".
		"patternProperties": {"patternProperties": map[string]any{`^(a+)+$`: map[string]any{"type": "integer"}}},
	} {
		t.Run(name, func(t *testing.T) {
			r := mustRegistry(t, tool.New("t", "", schema, okHandler))
			args := jsonObject("v", evil)
			if name == "patternProperties" {
				args = jsonObject(evil, "x")
			}
			for i := 0; i < 2; i++ { // the second call finds the recorded timeout
				start := time.Now()
				ret := r.Execute(context.Background(), nil, call("1", "t", args))
				if d := time.Since(start); d > 20*tool.PatternMatchTimeout {
					t.Fatalf("validation took %v", d)
				}
				wantKind(t, ret, tool.ErrorKindInvalidArguments)
				msg := content(t, ret)["message"].(string)
				if !strings.Contains(msg, "took longer than") || !strings.Contains(msg, `^(a+)+$`) || strings.Contains(msg, evil) {
					t.Fatalf("message %q", msg)
				}
			}
			// Short values still match in time.
			ok := jsonObject("v", "aaaa")
			if name == "patternProperties" {
				ok = jsonObject("aaaa", 1)
			}
			if ret := r.Execute(context.Background(), nil, call("2", "t", ok)); ret.IsError {
				t.Fatalf("valid call rejected: %v", ret.Content)
			}
		})
	}
}

// jsonObject encodes {key: value}.
func jsonObject(key string, value any) string {
	b, err := json.Marshal(map[string]any{key: value})
	if err != nil {
		panic(err)
	}
	return string(b)
}
