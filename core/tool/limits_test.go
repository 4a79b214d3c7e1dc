package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestArgumentLimitsRefuseBeforeExecution(t *testing.T) {
	ran := 0
	handler := func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		ran++
		return tool.Text("ok"), nil
	}
	echo := tool.New("echo", "", map[string]any{"type": "object"}, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		return handler(ctx, tc, args)
	})
	reg := mustRegistry(t, echo)
	deep := `{"a":` + strings.Repeat("[", tool.MaxArgumentDepth) + strings.Repeat("]", tool.MaxArgumentDepth) + `}`
	cases := map[string]struct {
		args string
		want string
	}{
		"too deep":        {deep, "nest deeper than"},
		"long integer":    {`{"n":` + strings.Repeat("9", tool.MaxNumberLength+1) + `}`, "number longer than"},
		"invalid utf-8":   {"{\"s\":\"\xff\xfe\"}", "not valid UTF-8"},
		"too large":       {`{"s":"` + strings.Repeat("x", tool.MaxArgumentBytes) + `"}`, "the limit is"},
		"deep in strings": {`{"s":"` + strings.Repeat("[", 1000) + `","n":` + strings.Repeat("1", tool.MaxNumberLength) + `}`, ""},
		"at the limit":    {`{"a":` + strings.Repeat("[", tool.MaxArgumentDepth-1) + strings.Repeat("]", tool.MaxArgumentDepth-1) + `}`, ""},
		"unicode":         {`{"s":"héllo \u00e9 ✓"}`, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ran = 0
			ret := reg.Execute(context.Background(), &tool.Context{}, call("c1", "echo", tc.args))
			if tc.want == "" {
				wantSuccess(t, ret)
				if ran != 1 {
					t.Fatalf("tool ran %d times, want 1", ran)
				}
				return
			}
			wantKind(t, ret, tool.ErrorKindInvalidArguments)
			if msg := content(t, ret)["message"].(string); !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q does not say %q", msg, tc.want)
			}
			if ran != 0 {
				t.Fatalf("tool ran %d times on refused arguments", ran)
			}
		})
	}
}
