package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A journaled call met a second time (a turn recovered after a crash)
// replays its recorded return instead of sending the message again.
func ExampleJournal() {
	send := tool.New("send_message", "Send a message.", map[string]any{"type": "object"},
		func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
			fmt.Println("sending", string(args))
			return tool.Text("sent"), nil
		}).WithEffect(effect.ClassNonIdempotentWrite)
	reg, _ := tool.NewRegistry(send)
	reg.SetJournal(&effect.Journal{Store: effect.NewMemoryStore()})

	base := &tool.Context{ConversationID: "session-1", RunID: "run-1", RunStep: 0}
	call := tool.Call{ID: "call_1", Name: "send_message", Arguments: json.RawMessage(`{"to":"ada"}`), Index: 0}
	for range 2 {
		ret := reg.Execute(context.Background(), base, call)
		fmt.Println(ret.Content, ret.Metadata[tool.MetaReplayed] == true)
	}
	// Output:
	// sending {"to":"ada"}
	// sent false
	// sent true
}
