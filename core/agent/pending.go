package agent

import (
	"context"
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/tool"
)

// completionKey is the completion key the agent reserves for a call of a
// tool that may defer (tool.Config.AttemptMayDefer): derived from the
// session, the turn ("<run id>:<step>") and the call id with
// intent.DeriveCompletionKey, so a replayed or recovered call keeps it.
func completionKey(tc *tool.Context) string {
	k, err := intent.DeriveCompletionKey(tc.ConversationID, TurnScope(tc.RunID, tc.RunStep).ID, tc.ToolCallID)
	if err != nil {
		return "" // a call without an id: completed by nothing but its return
	}
	return k
}

// pendingCompletion returns the completion of ret when it is a pending
// attempt's deferral (tool.Pending).
func pendingCompletion(ret tool.Return) (tool.PendingCompletion, bool) {
	if ret.Runtime == nil || ret.Runtime.ErrorKind != tool.ErrorKindCallDeferred {
		return tool.PendingCompletion{}, false
	}
	return tool.PendingOf(ret.Runtime.Request)
}

// commitPending records ret, a pending attempt, as ic's final attempt
// (intent.Pending, which holds no intents): a redrive of the call waits
// again under the same completion key instead of running the tool, and
// its external work, a second time.
func (x callIntents) commitPending(ctx context.Context, call tool.Call, ic intent.Call, ret tool.Return, c tool.PendingCompletion) tool.Return {
	if _, _, err := x.r.Commit(ctx, ic, intent.Pending{Completion: intentCompletion(c)}); err != nil {
		return intentFailure(call, "the intent journal could not record the pending call", err)
	}
	return ret
}

// replayPending is the Return of a call whose journal holds a pending
// final attempt: the deferral again, under the call's completion key.
func replayPending(tc *tool.Context, call tool.Call, p intent.Pending) tool.Return {
	e := tool.Pending("pending: the result arrives later (recorded by the intent journal)", toolCompletion(p.Completion))
	if tc != nil {
		c := *tc
		c.ToolCallID = call.ID
		if k := completionKey(&c); k != "" {
			e.Metadata[tool.MetaCompletionKey] = k
		}
	}
	return tool.ErrorReturn(call, e)
}

func intentCompletion(c tool.PendingCompletion) intent.Completion {
	return intent.Completion{DeadlineMS: c.DeadlineMS, OnTimeout: intent.TimeoutBehavior(c.OnTimeout), OnCancel: intent.CancelHint(c.OnCancel)}
}

func toolCompletion(c intent.Completion) tool.PendingCompletion {
	return tool.PendingCompletion{DeadlineMS: c.DeadlineMS, OnTimeout: string(c.OnTimeout), OnCancel: string(c.OnCancel)}
}

// completionKeyOf returns the completion key a deferral's request names.
func completionKeyOf(request map[string]any) string {
	switch k := request[tool.MetaCompletionKey].(type) {
	case string:
		return k
	case json.RawMessage:
		var s string
		_ = json.Unmarshal(k, &s)
		return s
	}
	return ""
}
