package toolset

import (
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestDuplicateErrorMessages(t *testing.T) {
	cases := map[DuplicateError]string{
		{Tool: "x", First: "a", Second: "b"}: `toolset: duplicate tool name "x" in toolsets "a" and "b"`,
		{Tool: "x", First: "a", Second: "a"}: `toolset: duplicate tool name "x" in toolset "a"`,
		{Tool: "x", First: "", Second: "b"}:  `toolset: duplicate tool name "x": already registered, contributed again by toolset "b"`,
	}
	for e, want := range cases {
		if got := e.Error(); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
}

func TestDecodeArgumentsKeepsNumbersExact(t *testing.T) {
	v := decodeArguments([]byte(`{"id": 12345678901234567890}`))
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"id":12345678901234567890}` {
		t.Fatalf("round trip = %s, %v", b, err)
	}
	if got := decodeArguments([]byte(`not json`)); got != "not json" {
		t.Fatalf("invalid JSON kept as %v", got)
	}
	if got := decodeArguments([]byte(`{} {}`)); got != "{} {}" {
		t.Fatalf("trailing data accepted: %v", got)
	}
	if got, ok := decodeArguments(nil).(map[string]any); !ok || len(got) != 0 {
		t.Fatalf("empty arguments = %v", got)
	}
}

func TestSelectorMatch(t *testing.T) {
	ts := New("docs").WithID("docs_id")
	def := tool.Definition{Name: "lookup", Metadata: map[string]any{tool.MetaBundle: "shell"}}
	cases := []struct {
		sel  []string
		want bool
	}{
		{nil, true}, {[]string{"*"}, true}, {[]string{"lookup"}, true}, {[]string{"docs"}, true},
		{[]string{"docs_id"}, true}, {[]string{"shell"}, true}, {[]string{"other", "lookup"}, true},
		{[]string{"other"}, false}, {[]string{""}, false},
	}
	for _, c := range cases {
		if got := newSelector(c.sel).match(ts, def); got != c.want {
			t.Errorf("selectors %q match = %v, want %v", c.sel, got, c.want)
		}
	}
	if newSelector([]string{""}).match(ts, tool.Definition{Name: "x", Metadata: map[string]any{tool.MetaBundle: ""}}) {
		t.Error("an empty bundle matched a blank selector")
	}
}

func TestPanicsOnNilToolsets(t *testing.T) {
	for name, f := range map[string]func(){
		"Prefixed":         func() { Prefixed("p", nil) },
		"Filtered":         func() { Filtered(nil, func(tool.Definition) bool { return true }) },
		"Filtered nil":     func() { Filtered(New("s"), nil) },
		"Renamed":          func() { Renamed(nil, nil) },
		"WithMetadata":     func() { WithMetadata(nil, nil) },
		"Prepared":         func() { Prepared(nil, func(*tool.RunContext, []tool.Definition) []tool.Definition { return nil }) },
		"Prepared nil":     func() { Prepared(New("s"), nil) },
		"Combined":         func() { Combined("c", New("s"), nil) },
		"ApprovalRequired": func() { ApprovalRequired(nil) },
		"Deferred":         func() { Deferred(nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}
