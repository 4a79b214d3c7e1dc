package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithydoc "github.com/aws/smithy-go/document"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// request is what Converse and ConverseStream share of their inputs.
type request struct {
	system     []types.SystemContentBlock
	messages   []types.Message
	inference  *types.InferenceConfiguration
	tools      *types.ToolConfiguration
	output     *types.OutputConfig
	additional document.Interface
}

// buildRequest maps a history and its params onto a request.
func (m *Model) buildRequest(messages []model.Message, params model.Params) (*request, error) {
	system, msgs, err := mapMessages(messages)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%w: bedrock: the request has no user or assistant content", model.ErrModel)
	}
	r := &request{system: system, messages: msgs}
	if r.tools, err = mapTools(params.Tools, params.Settings.ToolChoice, hasToolBlocks(msgs)); err != nil {
		return nil, err
	}
	r.inference = m.inference(params.Settings)
	if o := params.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
			// The output tool is among params.Tools.
		case model.OutputNative:
			if o.Schema == nil {
				return nil, fmt.Errorf("%w: bedrock: native output %q without a schema", model.ErrModel, o.Name)
			}
			schema, err := json.Marshal(o.Schema)
			if err != nil {
				return nil, fmt.Errorf("%w: bedrock: native output %q: encoding its schema: %w", model.ErrModel, o.Name, err)
			}
			def := types.JsonSchemaDefinition{Schema: aws.String(string(schema))}
			if o.Name != "" {
				def.Name = aws.String(o.Name)
			}
			if o.Description != "" {
				def.Description = aws.String(o.Description)
			}
			r.output = &types.OutputConfig{TextFormat: &types.OutputFormat{
				Type:      types.OutputFormatTypeJsonSchema,
				Structure: &types.OutputFormatStructureMemberJsonSchema{Value: def},
			}}
		default:
			return nil, fmt.Errorf("%w: bedrock: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	if len(params.Settings.ExtraBody) > 0 {
		// Converse has no free-form top level: model-specific fields go
		// in additionalModelRequestFields.
		v, err := documentValue(params.Settings.ExtraBody)
		if err != nil {
			return nil, fmt.Errorf("%w: bedrock: extra_body: %w", model.ErrModel, err)
		}
		r.additional = document.NewLazyDocument(v)
	}
	return r, nil
}

// inference maps the sampling settings; nil when none is set. Seed and
// ParallelToolCalls have no Converse field and are ignored.
func (m *Model) inference(s model.Settings) *types.InferenceConfiguration {
	var c types.InferenceConfiguration
	set := false
	switch {
	case s.MaxTokens != nil:
		c.MaxTokens, set = aws.Int32(int32(*s.MaxTokens)), true
	case m.maxTokens > 0:
		c.MaxTokens, set = aws.Int32(int32(m.maxTokens)), true
	}
	if s.Temperature != nil {
		c.Temperature, set = aws.Float32(float32(*s.Temperature)), true
	}
	if s.TopP != nil {
		c.TopP, set = aws.Float32(float32(*s.TopP)), true
	}
	if len(s.Stop) > 0 {
		c.StopSequences, set = s.Stop, true
	}
	if !set {
		return nil
	}
	return &c
}

// mapTools maps tool definitions and the tool choice onto toolConfig.
// Converse has no "none" choice: it sends no tools instead, which the API
// refuses once the history holds tool blocks, so that case fails here
// with a clear error.
func mapTools(defs []tool.Definition, choice string, toolHistory bool) (*types.ToolConfiguration, error) {
	if choice == "none" {
		if toolHistory {
			return nil, fmt.Errorf("%w: bedrock: tool_choice \"none\" cannot be sent: Converse has no such choice and needs the tools once the history holds tool calls", model.ErrModel)
		}
		return nil, nil
	}
	if len(defs) == 0 {
		if choice != "" && choice != "auto" {
			return nil, fmt.Errorf("%w: bedrock: tool_choice %q without tools", model.ErrModel, choice)
		}
		return nil, nil
	}
	c := &types.ToolConfiguration{Tools: make([]types.Tool, len(defs))}
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: bedrock: tool definition %d has no name", model.ErrModel, i)
		}
		schema := d.Parameters
		if schema == nil {
			schema = tool.EmptySchema()
		}
		v, err := documentValue(schema)
		if err != nil {
			return nil, fmt.Errorf("%w: bedrock: the schema of tool %q: %w", model.ErrModel, d.Name, err)
		}
		spec := types.ToolSpecification{
			Name:        aws.String(d.Name),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(v)},
		}
		if d.Description != "" {
			spec.Description = aws.String(d.Description)
		}
		if d.IsStrict() {
			spec.Strict = aws.Bool(true)
		}
		c.Tools[i] = &types.ToolMemberToolSpec{Value: spec}
	}
	switch choice {
	case "", "auto":
	case "required":
		c.ToolChoice = &types.ToolChoiceMemberAny{}
	default:
		c.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(choice)}}
	}
	return c, nil
}

func hasToolBlocks(msgs []types.Message) bool {
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.(type) {
			case *types.ContentBlockMemberToolUse, *types.ContentBlockMemberToolResult:
				return true
			}
		}
	}
	return false
}

// documentValue re-decodes v's JSON so that numbers keep their exact text
// (smithy's document.Number): the SDK's document encoder would otherwise
// turn a json.Number into a string and a json.RawMessage into bytes.
func documentValue(v any) (any, error) {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return smithydoc.Number(x)
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// turn collects the blocks of one Converse message; tool results lead a
// user message.
type turn struct {
	role    types.ConversationRole
	results []types.ContentBlock
	blocks  []types.ContentBlock
}

// mapMessages maps a history onto the system blocks and the alternating
// user and assistant messages of a request.
func mapMessages(messages []model.Message) ([]types.SystemContentBlock, []types.Message, error) {
	var (
		system []types.SystemContentBlock
		out    = make([]types.Message, 0, len(messages))
		cur    turn
		lastIn = -1
	)
	for i := range messages {
		if messages[i].Kind == model.KindRequest {
			lastIn = i
		}
	}
	flush := func() {
		if len(cur.results)+len(cur.blocks) > 0 {
			out = append(out, types.Message{Role: cur.role, Content: append(cur.results, cur.blocks...)})
		}
		cur = turn{}
	}
	open := func(role types.ConversationRole) {
		if cur.role != role {
			flush()
			cur.role = role
		}
	}
	for i := range messages {
		msg := &messages[i]
		switch msg.Kind {
		case model.KindRequest:
			open(types.ConversationRoleUser)
			for j := range msg.Parts {
				if err := mapRequestPart(&cur, &system, &msg.Parts[j]); err != nil {
					return nil, nil, err
				}
			}
			if i == lastIn && msg.Instructions != "" {
				system = append(system, &types.SystemContentBlockMemberText{Value: msg.Instructions})
			}
		case model.KindResponse:
			open(types.ConversationRoleAssistant)
			for j := range msg.Parts {
				if err := mapResponsePart(&cur, &msg.Parts[j]); err != nil {
					return nil, nil, err
				}
			}
		default:
			return nil, nil, fmt.Errorf("%w: bedrock: unknown message kind %q", model.ErrModel, msg.Kind)
		}
	}
	flush()
	return system, out, nil
}

func mapRequestPart(cur *turn, system *[]types.SystemContentBlock, p *model.Part) error {
	switch p.Kind {
	case model.KindSystemPrompt, model.KindInstruction:
		if p.Text != "" {
			*system = append(*system, &types.SystemContentBlockMemberText{Value: p.Text})
		}
	case model.KindUserPrompt:
		for _, c := range p.Content {
			if c.Kind != "text" {
				return fmt.Errorf("%w: bedrock: user content of kind %q is not supported", model.ErrModel, c.Kind)
			}
			if c.Text != "" {
				cur.blocks = append(cur.blocks, &types.ContentBlockMemberText{Value: c.Text})
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
			cur.blocks = append(cur.blocks, &types.ContentBlockMemberText{Value: p.Text})
		}
	case model.KindText, model.KindToolCall, model.KindThinking, model.KindRefusal:
		return fmt.Errorf("%w: bedrock: %s part in a request", model.ErrModel, p.Kind)
	default:
		return fmt.Errorf("%w: bedrock: unknown part kind %q", model.ErrModel, p.Kind)
	}
	return nil
}

func mapResponsePart(cur *turn, p *model.Part) error {
	switch p.Kind {
	case model.KindText:
		if p.Text != "" { // the API rejects blank text blocks
			cur.blocks = append(cur.blocks, &types.ContentBlockMemberText{Value: p.Text})
		}
	case model.KindToolCall:
		if p.ToolCall == nil {
			return fmt.Errorf("%w: bedrock: tool_call part without a call", model.ErrModel)
		}
		args := json.RawMessage(p.ToolCall.Arguments)
		if !isJSONObject(args) {
			// Malformed arguments were answered with a retry prompt; the
			// API only accepts an object here.
			args = json.RawMessage(`{}`)
		}
		v, err := documentValue(args)
		if err != nil {
			return fmt.Errorf("%w: bedrock: the arguments of call %q: %w", model.ErrModel, p.ToolCall.ID, err)
		}
		cur.blocks = append(cur.blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
			ToolUseId: aws.String(p.ToolCall.ID), Name: aws.String(p.ToolCall.Name), Input: document.NewLazyDocument(v),
		}})
	case model.KindThinking:
		t := p.Thinking
		if t == nil || t.Provider != ProviderName {
			return nil // another provider's reasoning means nothing here
		}
		switch {
		case t.Encrypted != "":
			data, err := base64.StdEncoding.DecodeString(t.Encrypted)
			if err != nil {
				return fmt.Errorf("%w: bedrock: redacted reasoning that is not base64: %w", model.ErrModel, err)
			}
			cur.blocks = append(cur.blocks, &types.ContentBlockMemberReasoningContent{
				Value: &types.ReasoningContentBlockMemberRedactedContent{Value: data}})
		case t.Signature != "":
			cur.blocks = append(cur.blocks, &types.ContentBlockMemberReasoningContent{
				Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{
					Text: aws.String(p.Text), Signature: aws.String(t.Signature)}}})
		}
		// Unsigned reasoning cannot be verified by the model: dropped.
	case model.KindRefusal:
		// The refusal is the API's verdict, not the model's words.
	case model.KindSystemPrompt, model.KindInstruction, model.KindUserPrompt, model.KindToolReturn, model.KindRetryPrompt:
		return fmt.Errorf("%w: bedrock: %s part in a response", model.ErrModel, p.Kind)
	default:
		return fmt.Errorf("%w: bedrock: unknown part kind %q", model.ErrModel, p.Kind)
	}
	return nil
}

// isJSONObject reports whether b is a valid JSON object.
func isJSONObject(b []byte) bool {
	s := strings.TrimLeft(string(b), " \t\r\n")
	return len(s) > 0 && s[0] == '{' && json.Valid(b)
}
