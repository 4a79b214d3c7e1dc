package bridge

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/tool"
)

// appendCallItem encodes a call item by hand: it is built once per tool
// call, and encoding/json's reflection (and the stack it grows in every
// call's goroutine) cost more than the rest of the dispatch.
//
// A call without approval or metadata (almost all of them) is sent as an
// array, which the host also decodes faster than an object:
// [token, tool, arguments] when the tool does not read its context, else
// [token, tool, run_id, conversation_id, tool_call_id, tool_name, run_step,
// retry, max_retries, idempotency_key, arguments]. A call with a
// completion key (a tool that may defer) is sent as an object.
func appendCallItem(b []byte, token, toolID int64, tc *tool.Context, args json.RawMessage, withContext bool) ([]byte, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	} else if bytes.IndexByte(args, '\n') >= 0 || bytes.IndexByte(args, '\r') >= 0 {
		// Items travel as lines: keep the arguments on one.
		var c bytes.Buffer
		if err := json.Compact(&c, args); err != nil {
			return nil, err
		}
		args = c.Bytes()
	}
	authority := authorityOf(tc)
	if tc.Approval == nil && len(tc.Metadata) == 0 && (authority == nil || !withContext) && (tc.CompletionKey() == "" || !withContext) {
		b = append(b, '[')
		b = strconv.AppendInt(b, token, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, toolID, 10)
		if !withContext {
			b = append(b, ',')
			b = append(b, args...)
			return append(b, ']'), nil
		}
		for _, s := range [...]string{tc.RunID, tc.ConversationID, tc.ToolCallID, tc.ToolName} {
			b = append(b, ',')
			b = appendString(b, s)
		}
		for _, n := range [...]int{tc.RunStep, tc.Retry, tc.MaxRetries} {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ',')
		b = appendString(b, tc.IdempotencyKey())
		b = append(b, ',')
		var err error
		if b, err = appendRuntime(b, &tc.Runtime); err != nil {
			return nil, err
		}
		b = append(b, ',')
		b = append(b, args...)
		return append(b, ']'), nil
	}
	b = append(b, `{"kind":"call","token":`...)
	b = strconv.AppendInt(b, token, 10)
	b = append(b, `,"tool":`...)
	b = strconv.AppendInt(b, toolID, 10)
	b = append(b, `,"context":{"run_id":`...)
	b = appendString(b, tc.RunID)
	b = append(b, `,"conversation_id":`...)
	b = appendString(b, tc.ConversationID)
	b = append(b, `,"run_step":`...)
	b = strconv.AppendInt(b, int64(tc.RunStep), 10)
	b = append(b, `,"tool_call_id":`...)
	b = appendString(b, tc.ToolCallID)
	b = append(b, `,"tool_name":`...)
	b = appendString(b, tc.ToolName)
	b = append(b, `,"retry":`...)
	b = strconv.AppendInt(b, int64(tc.Retry), 10)
	b = append(b, `,"max_retries":`...)
	b = strconv.AppendInt(b, int64(tc.MaxRetries), 10)
	b = append(b, `,"idempotency_key":`...)
	b = appendString(b, tc.IdempotencyKey())
	if k := tc.CompletionKey(); k != "" {
		b = append(b, `,"completion_key":`...)
		b = appendString(b, k)
	}
	var err error
	b = append(b, `,"approval":`...)
	if b, err = appendValue(b, tc.Approval, tc.Approval == nil); err != nil {
		return nil, err
	}
	b = append(b, `,"metadata":`...)
	if b, err = appendValue(b, tc.Metadata, len(tc.Metadata) == 0); err != nil {
		return nil, err
	}
	if authority != nil {
		b = append(b, `,"authority":`...)
		if b, err = appendValue(b, authority, false); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"runtime":`...)
	if b, err = appendRuntime(b, &tc.Runtime); err != nil {
		return nil, err
	}
	b = append(b, `},"arguments":`...)
	b = append(b, args...)
	return append(b, '}'), nil
}

// appendRuntime appends a call's runtime snapshot as encoding/json writes
// it, without reflection: it travels with every call that reads its
// context.
func appendRuntime(b []byte, rs *tool.RuntimeSnapshot) ([]byte, error) {
	b = append(b, `{"limits":{`...)
	l := &rs.Limits
	first := true
	for _, f := range [...]struct {
		key string
		v   int
	}{{"request_limit", l.RequestLimit}, {"tool_calls_limit", l.ToolCallsLimit}, {"input_tokens_limit", l.InputTokensLimit},
		{"output_tokens_limit", l.OutputTokensLimit}, {"total_tokens_limit", l.TotalTokensLimit}} {
		if f.v == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, f.key...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, int64(f.v), 10)
	}
	b = append(b, `},"max_retries":`...)
	b = strconv.AppendInt(b, int64(rs.MaxRetries), 10)
	if rs.TimeoutMS != 0 {
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, rs.TimeoutMS, 10)
	}
	if len(rs.ShellEnvironment) > 0 {
		b = append(b, `,"shell_environment":`...)
		var err error
		if b, err = appendValue(b, rs.ShellEnvironment, false); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any, null bool) ([]byte, error) {
	if null {
		return append(b, "null"...), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendString appends s as a JSON string, taking a shortcut for the
// common plain-ASCII case and deferring to encoding/json otherwise.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
