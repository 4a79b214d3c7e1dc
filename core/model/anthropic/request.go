package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// buildRequest maps a history and its params onto the SDK's request body
// and the per-request options (extra headers and body keys).
func (m *Model) buildRequest(messages []model.Message, params model.Params) (sdk.MessageNewParams, []option.RequestOption, error) {
	var body sdk.MessageNewParams
	body.Model = sdk.Model(m.name)
	system, msgs, err := mapMessages(messages)
	if err != nil {
		return body, nil, err
	}
	if len(msgs) == 0 {
		return body, nil, fmt.Errorf("%w: anthropic: the request has no user or assistant content", model.ErrModel)
	}
	body.System = system
	body.Messages = msgs
	if body.Tools, err = mapTools(params.Tools); err != nil {
		return body, nil, err
	}
	m.applySettings(&body, params.Settings)
	if o := params.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
			// The output tool is among params.Tools.
		case model.OutputNative:
			if o.Schema == nil {
				return body, nil, fmt.Errorf("%w: anthropic: native output %q without a schema", model.ErrModel, o.Name)
			}
			body.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: o.Schema}
		default:
			return body, nil, fmt.Errorf("%w: anthropic: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	var ropts []option.RequestOption
	// This SDK version has no typed temperature or top_p field; the API
	// still accepts both, so they are set on the body by name.
	if t := params.Settings.Temperature; t != nil {
		ropts = append(ropts, option.WithJSONSet("temperature", *t))
	}
	if t := params.Settings.TopP; t != nil {
		ropts = append(ropts, option.WithJSONSet("top_p", *t))
	}
	for k, v := range params.Settings.ExtraHeaders {
		ropts = append(ropts, option.WithHeader(k, v))
	}
	for k, v := range params.Settings.ExtraBody {
		ropts = append(ropts, option.WithJSONSet(k, v))
	}
	return body, ropts, nil
}

// applySettings maps model settings onto the typed request fields (see
// buildRequest for temperature and top_p). Seed has no Anthropic
// counterpart and is ignored.
func (m *Model) applySettings(body *sdk.MessageNewParams, s model.Settings) {
	body.MaxTokens = int64(m.maxTokens)
	if s.MaxTokens != nil {
		body.MaxTokens = int64(*s.MaxTokens)
	}
	if len(s.Stop) > 0 {
		body.StopSequences = s.Stop
	}
	if m.thinkingBudget > 0 {
		body.Thinking.OfEnabled = &sdk.ThinkingConfigEnabledParam{BudgetTokens: int64(m.thinkingBudget)}
	}
	noParallel := s.ParallelToolCalls != nil && !*s.ParallelToolCalls
	var disable = sdk.Bool(true)
	switch s.ToolChoice {
	case "":
		if noParallel && len(body.Tools) > 0 {
			body.ToolChoice.OfAuto = &sdk.ToolChoiceAutoParam{DisableParallelToolUse: disable}
		}
	case "auto":
		body.ToolChoice.OfAuto = &sdk.ToolChoiceAutoParam{}
		if noParallel {
			body.ToolChoice.OfAuto.DisableParallelToolUse = disable
		}
	case "none":
		body.ToolChoice.OfNone = &sdk.ToolChoiceNoneParam{}
	case "required":
		body.ToolChoice.OfAny = &sdk.ToolChoiceAnyParam{}
		if noParallel {
			body.ToolChoice.OfAny.DisableParallelToolUse = disable
		}
	default:
		body.ToolChoice.OfTool = &sdk.ToolChoiceToolParam{Name: s.ToolChoice}
		if noParallel {
			body.ToolChoice.OfTool.DisableParallelToolUse = disable
		}
	}
}

// mapTools translates tool definitions: name, description, the JSON schema
// as input_schema, and strict for tools that ask for it.
func mapTools(defs []tool.Definition) ([]sdk.ToolUnionParam, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]sdk.ToolUnionParam, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: anthropic: tool definition %d has no name", model.ErrModel, i)
		}
		t := &sdk.ToolParam{Name: d.Name, InputSchema: inputSchema(d.Parameters)}
		if d.Description != "" {
			t.Description = sdk.String(d.Description)
		}
		if d.IsStrict() {
			t.Strict = sdk.Bool(true)
		}
		out[i] = sdk.ToolUnionParam{OfTool: t}
	}
	return out, nil
}

// inputSchema splits a JSON schema into the SDK's typed fields (type is
// always "object") and its extra fields, which are sent unchanged.
func inputSchema(schema map[string]any) sdk.ToolInputSchemaParam {
	var s sdk.ToolInputSchemaParam
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			switch r := v.(type) {
			case []string:
				s.Required = r
			case []any:
				req := make([]string, 0, len(r))
				for _, x := range r {
					if name, ok := x.(string); ok {
						req = append(req, name)
					}
				}
				s.Required = req
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = make(map[string]any, len(schema))
			}
			s.ExtraFields[k] = v
		}
	}
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	return s
}

// turn collects the blocks of one API message. Tool results are kept apart
// so that they lead the user message, as the API requires.
type turn struct {
	role    string // "user" or "assistant"
	results []sdk.ContentBlockParamUnion
	blocks  []sdk.ContentBlockParamUnion
}

// mapMessages maps a history onto the system blocks and the alternating
// user and assistant messages of a request.
func mapMessages(messages []model.Message) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var (
		system []sdk.TextBlockParam
		out    []sdk.MessageParam
		cur    turn
		lastIn = -1
	)
	for i := range messages {
		if messages[i].Kind == model.KindRequest {
			lastIn = i
		}
	}
	flush := func() {
		content := append(cur.results, cur.blocks...)
		if len(content) > 0 {
			if cur.role == "assistant" {
				out = append(out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: content}})
			} else {
				out = append(out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: content}})
			}
		}
		cur = turn{}
	}
	open := func(role string) {
		if cur.role != role {
			flush()
			cur.role = role
		}
	}
	for i, msg := range messages {
		switch msg.Kind {
		case model.KindRequest:
			open("user")
			for _, p := range msg.Parts {
				if err := mapRequestPart(&cur, &system, p); err != nil {
					return nil, nil, err
				}
			}
			if i == lastIn && msg.Instructions != "" {
				system = append(system, sdk.TextBlockParam{Text: msg.Instructions})
			}
		case model.KindResponse:
			open("assistant")
			for _, p := range msg.Parts {
				if err := mapResponsePart(&cur, p); err != nil {
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

func mapRequestPart(cur *turn, system *[]sdk.TextBlockParam, p model.Part) error {
	switch p.Kind {
	case model.KindSystemPrompt, model.KindInstruction:
		if p.Text != "" {
			*system = append(*system, sdk.TextBlockParam{Text: p.Text})
		}
	case model.KindUserPrompt:
		for _, c := range p.Content {
			if c.Kind != "text" {
				return fmt.Errorf("%w: anthropic: user content of kind %q is not supported", model.ErrModel, c.Kind)
			}
			if c.Text != "" {
				cur.blocks = append(cur.blocks, sdk.NewTextBlock(c.Text))
			}
		}
	case model.KindToolReturn:
		if p.Return == nil {
			return fmt.Errorf("%w: anthropic: tool_return part without a return", model.ErrModel)
		}
		text, err := returnText(p.Return.Content)
		if err != nil {
			return fmt.Errorf("%w: anthropic: tool return %q: %w", model.ErrModel, p.Return.ToolCallID, err)
		}
		cur.results = append(cur.results, toolResult(p.Return.ToolCallID, text, p.Return.IsError))
	case model.KindRetryPrompt:
		if p.ToolCallID != "" {
			cur.results = append(cur.results, toolResult(p.ToolCallID, p.Text, true))
		} else if p.Text != "" {
			cur.blocks = append(cur.blocks, sdk.NewTextBlock(p.Text))
		}
	case model.KindText, model.KindToolCall, model.KindThinking, model.KindRefusal:
		return fmt.Errorf("%w: anthropic: %s part in a request", model.ErrModel, p.Kind)
	default:
		return fmt.Errorf("%w: anthropic: unknown part kind %q", model.ErrModel, p.Kind)
	}
	return nil
}

func mapResponsePart(cur *turn, p model.Part) error {
	switch p.Kind {
	case model.KindText:
		if p.Text != "" { // the API rejects empty text blocks
			cur.blocks = append(cur.blocks, sdk.NewTextBlock(p.Text))
		}
	case model.KindToolCall:
		if p.ToolCall == nil {
			return fmt.Errorf("%w: anthropic: tool_call part without a call", model.ErrModel)
		}
		args := p.ToolCall.Arguments
		if len(args) == 0 || !json.Valid(args) {
			// Malformed arguments were answered with a retry prompt; the
			// API only accepts an object here.
			args = json.RawMessage(`{}`)
		}
		cur.blocks = append(cur.blocks, sdk.NewToolUseBlock(p.ToolCall.ID, args, p.ToolCall.Name))
	case model.KindThinking:
		t := p.Thinking
		if t == nil || t.Provider != ProviderName {
			return nil // another provider's reasoning means nothing here
		}
		switch {
		case t.Encrypted != "":
			cur.blocks = append(cur.blocks, sdk.NewRedactedThinkingBlock(t.Encrypted))
		case t.Signature != "":
			cur.blocks = append(cur.blocks, sdk.NewThinkingBlock(t.Signature, p.Text))
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

func toolResult(id, text string, isError bool) sdk.ContentBlockParamUnion {
	r := &sdk.ToolResultBlockParam{ToolUseID: id}
	if text != "" {
		r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: text}}}
	}
	if isError {
		r.IsError = sdk.Bool(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: r}
}

// returnText is the text of a tool return: a string as is, anything else
// as its JSON encoding.
func returnText(content any) (string, error) {
	switch c := content.(type) {
	case nil:
		return "", nil
	case string:
		return c, nil
	case json.RawMessage:
		return strings.TrimSpace(string(c)), nil
	}
	b, err := json.Marshal(content)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
