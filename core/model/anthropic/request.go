package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// buildRequest maps a history and its params onto the request body and the
// per-request options (extra headers and body keys).
func (m *Model) buildRequest(messages []model.Message, params model.Params) (*wireRequest, []option.RequestOption, error) {
	system, msgs, err := mapMessages(messages)
	if err != nil {
		return nil, nil, err
	}
	if len(msgs) == 0 {
		return nil, nil, fmt.Errorf("%w: anthropic: the request has no user or assistant content", model.ErrModel)
	}
	body := &wireRequest{Model: m.name, System: system, Messages: msgs, Stream: m.streaming}
	if body.Tools, err = mapTools(params.Tools); err != nil {
		return nil, nil, err
	}
	m.applySettings(body, params.Settings)
	if o := params.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
			// The output tool is among params.Tools.
		case model.OutputNative:
			if o.Schema == nil {
				return nil, nil, fmt.Errorf("%w: anthropic: native output %q without a schema", model.ErrModel, o.Name)
			}
			body.OutputConfig = &wireOutputConfig{Format: wireOutputFormat{Type: "json_schema", Schema: o.Schema}}
		default:
			return nil, nil, fmt.Errorf("%w: anthropic: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	var ropts []option.RequestOption
	for k, v := range params.Settings.ExtraHeaders {
		ropts = append(ropts, option.WithHeader(k, v))
	}
	for k, v := range params.Settings.ExtraBody {
		ropts = append(ropts, option.WithJSONSet(sjsonKey(k), v))
	}
	return body, ropts, nil
}

// sjsonKey escapes a top-level key for option.WithJSONSet, whose keys are
// sjson paths: "a.b" would otherwise set b inside a.
func sjsonKey(k string) string {
	if !strings.ContainsAny(k, `.*?|#@!\:`) {
		return k
	}
	var b strings.Builder
	for _, r := range k {
		if strings.ContainsRune(`.*?|#@!\:`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// applySettings maps model settings onto the request. Seed has no
// Anthropic counterpart and is ignored.
func (m *Model) applySettings(body *wireRequest, s model.Settings) {
	body.MaxTokens = m.maxTokens
	if s.MaxTokens != nil {
		body.MaxTokens = *s.MaxTokens
	}
	body.Temperature = s.Temperature
	body.TopP = s.TopP
	if len(s.Stop) > 0 {
		body.StopSequences = s.Stop
	}
	if m.thinkingBudget > 0 {
		body.Thinking = &wireThinking{Type: "enabled", BudgetTokens: m.thinkingBudget}
	}
	noParallel := s.ParallelToolCalls != nil && !*s.ParallelToolCalls
	switch s.ToolChoice {
	case "":
		if noParallel && len(body.Tools) > 0 {
			body.ToolChoice = &wireToolChoice{Type: "auto", DisableParallelToolUse: true}
		}
	case "auto":
		body.ToolChoice = &wireToolChoice{Type: "auto", DisableParallelToolUse: noParallel}
	case "none":
		body.ToolChoice = &wireToolChoice{Type: "none"}
	case "required":
		body.ToolChoice = &wireToolChoice{Type: "any", DisableParallelToolUse: noParallel}
	default:
		body.ToolChoice = &wireToolChoice{Type: "tool", Name: s.ToolChoice, DisableParallelToolUse: noParallel}
	}
}

// mapTools translates tool definitions: name, description, the JSON schema
// as input_schema (sent unchanged), and strict for tools that ask for it.
func mapTools(defs []tool.Definition) ([]wireTool, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]wireTool, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: anthropic: tool definition %d has no name", model.ErrModel, i)
		}
		schema := d.Parameters
		if schema == nil {
			schema = tool.EmptySchema()
		}
		out[i] = wireTool{Name: d.Name, Description: d.Description, InputSchema: schema, Strict: d.IsStrict()}
	}
	return out, nil
}

// turn collects the blocks of one API message. Tool results are kept apart
// so that they lead the user message, as the API requires.
type turn struct {
	role    string // "user" or "assistant"
	results []any
	blocks  []any
}

// mapMessages maps a history onto the system blocks and the alternating
// user and assistant messages of a request.
func mapMessages(messages []model.Message) ([]textBlock, []wireMessage, error) {
	var (
		system []textBlock
		out    = make([]wireMessage, 0, len(messages))
		cur    turn
		lastIn = -1
	)
	for i := range messages {
		if messages[i].Kind == model.KindRequest {
			lastIn = i
		}
	}
	flush := func() {
		if n := len(cur.results) + len(cur.blocks); n > 0 {
			content := append(cur.results, cur.blocks...)
			out = append(out, wireMessage{Role: cur.role, Content: content})
		}
		cur = turn{}
	}
	open := func(role string) {
		if cur.role != role {
			flush()
			cur.role = role
		}
	}
	for i := range messages {
		msg := &messages[i]
		switch msg.Kind {
		case model.KindRequest:
			open("user")
			for j := range msg.Parts {
				if err := mapRequestPart(&cur, &system, &msg.Parts[j]); err != nil {
					return nil, nil, err
				}
			}
			if i == lastIn && msg.Instructions != "" {
				system = append(system, textBlock{Type: "text", Text: msg.Instructions})
			}
		case model.KindResponse:
			open("assistant")
			for j := range msg.Parts {
				if err := mapResponsePart(&cur, &msg.Parts[j]); err != nil {
					return nil, nil, err
				}
			}
		default:
			return nil, nil, fmt.Errorf("%w: anthropic: unknown message kind %q", model.ErrModel, msg.Kind)
		}
	}
	flush()
	return system, out, nil
}

func mapRequestPart(cur *turn, system *[]textBlock, p *model.Part) error {
	switch p.Kind {
	case model.KindSystemPrompt, model.KindInstruction:
		if p.Text != "" {
			*system = append(*system, textBlock{Type: "text", Text: p.Text})
		}
	case model.KindUserPrompt:
		for _, c := range p.Content {
			if c.Kind != "text" {
				return fmt.Errorf("%w: anthropic: user content of kind %q is not supported", model.ErrModel, c.Kind)
			}
			if c.Text != "" {
				cur.blocks = append(cur.blocks, textBlock{Type: "text", Text: c.Text})
			}
		}
	case model.KindToolReturn:
		block, err := toolResultOf(p.Return)
		if err != nil {
			return err
		}
		cur.results = append(cur.results, block)
	case model.KindRetryPrompt:
		if p.ToolCallID != "" {
			cur.results = append(cur.results, toolResult(p.ToolCallID, p.Text, true))
		} else if p.Text != "" {
			cur.blocks = append(cur.blocks, textBlock{Type: "text", Text: p.Text})
		}
	case model.KindText, model.KindToolCall, model.KindThinking, model.KindRefusal:
		return fmt.Errorf("%w: anthropic: %s part in a request", model.ErrModel, p.Kind)
	default:
		return fmt.Errorf("%w: anthropic: unknown part kind %q", model.ErrModel, p.Kind)
	}
	return nil
}

func mapResponsePart(cur *turn, p *model.Part) error {
	switch p.Kind {
	case model.KindText:
		if p.Text != "" { // the API rejects empty text blocks
			cur.blocks = append(cur.blocks, textBlock{Type: "text", Text: p.Text})
		}
	case model.KindToolCall:
		if p.ToolCall == nil {
			return fmt.Errorf("%w: anthropic: tool_call part without a call", model.ErrModel)
		}
		args := p.ToolCall.Arguments
		if !isJSONObject(args) {
			// Malformed arguments were answered with a retry prompt; the
			// API only accepts an object here.
			args = json.RawMessage(`{}`)
		}
		cur.blocks = append(cur.blocks, toolUseBlock{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: args})
	case model.KindThinking:
		t := p.Thinking
		if t == nil || t.Provider != ProviderName {
			return nil // another provider's reasoning means nothing here
		}
		switch {
		case t.Encrypted != "":
			cur.blocks = append(cur.blocks, redactedThinkingBlock{Type: "redacted_thinking", Data: t.Encrypted})
		case t.Signature != "":
			cur.blocks = append(cur.blocks, thinkingBlock{Type: "thinking", Thinking: p.Text, Signature: t.Signature})
		}
		// Unsigned thinking cannot be verified by the API: dropped.
	case model.KindRefusal:
		// The refusal is the API's verdict, not the model's words.
	case model.KindSystemPrompt, model.KindInstruction, model.KindUserPrompt, model.KindToolReturn, model.KindRetryPrompt:
		return fmt.Errorf("%w: anthropic: %s part in a response", model.ErrModel, p.Kind)
	default:
		return fmt.Errorf("%w: anthropic: unknown part kind %q", model.ErrModel, p.Kind)
	}
	return nil
}

// isJSONObject reports whether b is a valid JSON object.
func isJSONObject(b json.RawMessage) bool {
	s := strings.TrimLeft(string(b), " \t\r\n")
	return len(s) > 0 && s[0] == '{' && json.Valid(b)
}

func toolResult(id, text string, isError bool) toolResultBlock {
	r := toolResultBlock{Type: "tool_result", ToolUseID: id, IsError: isError}
	if text != "" {
		r.Content = []any{textBlock{Type: "text", Text: text}}
	}
	return r
}

// returnText is the text of a tool return: a string as is (a JSON string
// too: see model.StringContent), anything else as its JSON encoding.
func returnText(content any) (string, error) {
	if s, ok := model.StringContent(content); ok {
		return s, nil
	}
	switch c := content.(type) {
	case nil:
		return "", nil
	case json.RawMessage:
		return strings.TrimSpace(string(c)), nil
	}
	b, err := json.Marshal(content)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
