package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// hostileArguments are replies that Python's JSON reader cannot decode (a
// RecursionError, "Exceeds the limit (4300 digits)", UnicodeDecodeError),
// with the reason the registry gives for each.
func hostileArguments() map[string]struct {
	raw    string
	reason string
} {
	return map[string]struct {
		raw    string
		reason string
	}{
		"huge integer":  {`{"n": ` + strings.Repeat("7", 5001) + `}`, "number longer than"},
		"deep nesting":  {`{"a": ` + strings.Repeat("[", 1500) + strings.Repeat("]", 1500) + `}`, "nest deeper than"},
		"invalid UTF-8": {"{\"s\": \"caf\xe9 \xff\"}", "not valid UTF-8"},
	}
}

// readable checks b as Python's reader would: valid UTF-8, valid JSON, no
// number over 4 300 digits and nesting well under its recursion limit.
func readable(t *testing.T, what string, b []byte) {
	t.Helper()
	if !utf8.Valid(b) {
		t.Fatalf("%s is not valid UTF-8", what)
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s is not JSON: %v", what, err)
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 200 {
			t.Fatalf("%s nests deeper than 200 levels", what)
		}
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case json.Number:
			if len(x) > tool.MaxNumberLength {
				t.Fatalf("%s holds a %d-digit number", what, len(x))
			}
		}
	}
	walk(v, 0)
}

func TestUnreadableArgumentsNeverReachHistory(t *testing.T) {
	for name, c := range hostileArguments() {
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streamed=%v", name, streamed), func(t *testing.T) {
				var ran atomic.Int32
				echo := tool.New("echo", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
					ran.Add(1)
					return tool.Result{Content: "ran"}, nil
				})
				reply := calls(model.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(c.raw)})
				var m model.Model
				var received [][]model.Message
				var tm *model.TestModel
				if streamed {
					// TestModel streams, so the call starts eagerly.
					tm = model.NewTestModel(reply, text("done"))
					m = tm
				} else {
					n := 0
					m = model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
						received = append(received, msgs)
						n++
						if n == 1 {
							return reply, nil
						}
						return text("done"), nil
					})
				}
				s := agent.NewBuilder(m).Tool(echo).MustBuild().NewSession()
				var events [][]byte
				res, err := s.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) {
					b, err := json.Marshal(ev)
					if err != nil {
						t.Errorf("event %s does not marshal: %v", ev.Kind, err)
					}
					events = append(events, b)
				}))
				if err != nil {
					t.Fatal(err)
				}
				if res.Output != "done" {
					t.Fatalf("output %q", res.Output)
				}
				if ran.Load() != 0 {
					t.Fatal("the tool ran with arguments beyond the limits")
				}
				rets := res.Returns()
				if len(rets) != 1 || rets[0].ErrorKind() != tool.ErrorKindInvalidArguments {
					t.Fatalf("returns %+v", rets)
				}
				if b, _ := json.Marshal(rets[0].Content); !strings.Contains(string(b), c.reason) {
					t.Fatalf("the return does not say %q: %s", c.reason, b)
				}
				state, err := s.ExportState()
				if err != nil {
					t.Fatal(err)
				}
				readable(t, "exported state", state)
				msgs, err := json.Marshal(s.Messages())
				if err != nil {
					t.Fatal(err)
				}
				readable(t, "history", msgs)
				for i, e := range events {
					readable(t, fmt.Sprintf("event %d", i), e)
				}
				// History keeps what the model sent, as text.
				call := s.Messages()[1].Parts[0].ToolCall
				var kept string
				if err := json.Unmarshal(call.Arguments, &kept); err != nil || !strings.HasPrefix(kept, `{"`) {
					t.Fatalf("history keeps %q, not the text the model sent", call.Arguments)
				}
				if tm != nil {
					for _, r := range tm.Requests() {
						received = append(received, r.Messages)
					}
				}
				if len(received) != 2 {
					t.Fatalf("the model received %d requests", len(received))
				}
				b, err := json.Marshal(received[1])
				if err != nil {
					t.Fatal(err)
				}
				readable(t, "the next request", b)
				// The state stays usable: it restores and runs.
				restored, err := s.Agent().SessionFromState(state, agent.AllowUnsigned())
				if err != nil {
					t.Fatal(err)
				}
				if len(restored.Messages()) != len(s.Messages()) {
					t.Fatal("the restored session lost messages")
				}
			})
		}
	}
}

func TestArgumentsForHistoryKeepsReadableText(t *testing.T) {
	for _, raw := range []string{``, `{}`, `{"a": [1, 2.5e10, "x"]}`, `"a string"`, `[1]`} {
		got, kept := tool.ArgumentsForHistory(json.RawMessage(raw))
		if !kept || string(got) != raw {
			t.Fatalf("%q became %q (kept %v)", raw, got, kept)
		}
	}
	big := `{"s": "` + strings.Repeat("x", tool.MaxArgumentBytes) + `"}`
	got, kept := tool.ArgumentsForHistory(json.RawMessage(big))
	if kept || len(got) > tool.MaxRefusedArgumentsText+16 {
		t.Fatalf("oversized arguments kept %d bytes (kept %v)", len(got), kept)
	}
	got, kept = tool.ArgumentsForHistory(json.RawMessage(`{"a":`))
	var s string
	if kept || json.Unmarshal(got, &s) != nil || s != `{"a":` {
		t.Fatalf("broken JSON became %q", got)
	}
}
