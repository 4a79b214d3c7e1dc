package bedrock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/starweaver-go/starweaver/core/model"
)

// converse sends one Converse request and maps its response.
func (m *Model) converse(ctx context.Context, in *request, opt func(*bedrockruntime.Options)) (model.Message, error) {
	out, err := m.client.Converse(ctx, &bedrockruntime.ConverseInput{
		ModelId:                      aws.String(m.name),
		System:                       in.system,
		Messages:                     in.messages,
		InferenceConfig:              in.inference,
		ToolConfig:                   in.tools,
		OutputConfig:                 in.output,
		AdditionalModelRequestFields: in.additional,
	}, opt)
	if err != nil {
		return model.Message{}, err
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return model.Message{}, fmt.Errorf("%w: bedrock: malformed response: no output message (%T)", model.ErrModel, out.Output)
	}
	parts := make([]model.Part, 0, len(msg.Value.Content))
	for i, b := range msg.Value.Content {
		p, err := partOf(b)
		if err != nil {
			return model.Message{}, fmt.Errorf("%w: bedrock: malformed response: content block %d: %w", model.ErrModel, i, err)
		}
		if p.Kind != "" {
			parts = append(parts, p)
		}
	}
	return m.message(parts, out.StopReason, out.Usage, out.ResultMetadata)
}

// partOf maps one response content block; a zero part is one to skip.
func partOf(b types.ContentBlock) (model.Part, error) {
	switch v := b.(type) {
	case *types.ContentBlockMemberText:
		if v.Value == "" {
			return model.Part{}, nil
		}
		return model.TextPart(v.Value), nil
	case *types.ContentBlockMemberToolUse:
		var args []byte
		if v.Value.Input != nil {
			b, err := v.Value.Input.MarshalSmithyDocument()
			if err != nil {
				return model.Part{}, fmt.Errorf("toolUse input: %w", err)
			}
			args = b
		}
		return model.ToolCallPart(aws.ToString(v.Value.ToolUseId), aws.ToString(v.Value.Name), args), nil
	case *types.ContentBlockMemberReasoningContent:
		switch r := v.Value.(type) {
		case *types.ReasoningContentBlockMemberReasoningText:
			return model.ThinkingPart(aws.ToString(r.Value.Text), model.Thinking{Provider: ProviderName, Signature: aws.ToString(r.Value.Signature)}), nil
		case *types.ReasoningContentBlockMemberRedactedContent:
			return model.ThinkingPart("", model.Thinking{Provider: ProviderName, Encrypted: base64.StdEncoding.EncodeToString(r.Value)}), nil
		}
		return model.Part{}, fmt.Errorf("unknown reasoningContent member %T", v.Value)
	}
	return model.Part{}, fmt.Errorf("content block of unsupported type %T", b)
}

// message completes a response from its parts, stop reason, usage and the
// request id of the response metadata.
func (m *Model) message(parts []model.Part, stop types.StopReason, u *types.TokenUsage, md middleware.Metadata) (model.Message, error) {
	if len(parts) == 0 && stop != types.StopReasonMaxTokens {
		return model.Message{}, fmt.Errorf("%w: bedrock: malformed response: no content (stop reason %q)", model.ErrModel, stop)
	}
	msg := model.Response(parts...)
	msg.ModelName = m.name
	msg.Provider = m.provider
	msg.FinishReason = finishReason(stop)
	msg.ResponseID, _ = awsmiddleware.GetRequestIDMetadata(md)
	msg.Usage = usageOf(u)
	if msg.FinishReason == model.FinishToolCalls && len(msg.ToolCalls()) == 0 {
		msg.FinishReason = model.FinishStop
	}
	for _, p := range parts {
		if p.Kind == model.KindToolCall && !json.Valid(p.ToolCall.Arguments) {
			return model.Message{}, fmt.Errorf("%w: bedrock: malformed response: the arguments of call %q are not JSON", model.ErrModel, p.ToolCall.ID)
		}
	}
	return msg, nil
}

func finishReason(s types.StopReason) string {
	switch s {
	case types.StopReasonToolUse:
		return model.FinishToolCalls
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		return model.FinishLength
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return model.FinishContentFilter
	case types.StopReasonMalformedModelOutput, types.StopReasonMalformedToolUse:
		return model.FinishError
	}
	return model.FinishStop
}

// usageOf counts inputTokens plus the cache reads and writes as
// InputTokens (Bedrock's inputTokens leaves them out), reporting the latter
// also on their own.
func usageOf(u *types.TokenUsage) *model.Usage {
	out := &model.Usage{Requests: 1}
	if u == nil {
		return out
	}
	in := int(aws.ToInt32(u.InputTokens))
	out.CacheReadTokens = int(aws.ToInt32(u.CacheReadInputTokens))
	out.CacheWriteTokens = int(aws.ToInt32(u.CacheWriteInputTokens))
	out.InputTokens = in + out.CacheReadTokens + out.CacheWriteTokens
	out.OutputTokens = int(aws.ToInt32(u.OutputTokens))
	return out
}
