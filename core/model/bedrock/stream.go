package bedrock

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/starweaver-go/starweaver/core/model"
)

// errStreamCut is returned when a stream ends cleanly before messageStop.
var errStreamCut = errors.New("the response stream ended before messageStop")

// streamError marks an error of a stream that had started: it maps to
// Code "stream_error" unless the stream carried an exception.
type streamError struct{ err error }

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// stream sends one ConverseStream request and assembles its events,
// reporting deltas (which may be nil) as they arrive.
func (m *Model) stream(ctx context.Context, in *request, opt func(*bedrockruntime.Options), deltas model.DeltaHandler) (model.Message, error) {
	taker := &bodyTaker{}
	take := func(o *bedrockruntime.Options) { o.APIOptions = append(o.APIOptions, taker.option()) }
	out, err := m.client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId:                      aws.String(m.name),
		System:                       in.system,
		Messages:                     in.messages,
		InferenceConfig:              in.inference,
		ToolConfig:                   in.tools,
		OutputConfig:                 in.output,
		AdditionalModelRequestFields: in.additional,
	}, opt, take)
	if err != nil {
		return model.Message{}, err
	}
	// The SDK's reader got an empty body (see bodyTaker): it ends at once.
	if es := out.GetStream(); es != nil {
		defer es.Close()
	}
	if taker.body == nil {
		return model.Message{}, &streamError{errors.New("no event stream in the response")}
	}
	defer taker.body.Close()
	a := assembler{deltas: deltas, blocks: map[int32]*block{}}
	fr := frameReader{r: bufio.NewReaderSize(taker.body, 8<<10)}
	for {
		f, err := fr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return model.Message{}, &streamError{err}
		}
		ev, err := event(&f)
		if err != nil {
			return model.Message{}, &streamError{err}
		}
		if ev == nil {
			continue
		}
		if err := a.add(ev); err != nil {
			return model.Message{}, err
		}
	}
	if !a.stopped {
		return model.Message{}, &streamError{errStreamCut}
	}
	parts := make([]model.Part, 0, len(a.blocks))
	idx := make([]int32, 0, len(a.blocks))
	for i := range a.blocks {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		if p := a.blocks[i].part(); p.Kind != "" {
			parts = append(parts, p)
		}
	}
	return m.message(parts, a.stop, a.usage, out.ResultMetadata)
}

// block is one content block of a stream being assembled.
type block struct {
	tool      bool
	call      int // the call's index among the response's calls
	id, name  string
	text      strings.Builder // text, reasoning text or tool input
	reasoning bool
	signature string
	redacted  []byte
}

func (b *block) part() model.Part {
	switch {
	case b.tool:
		return model.ToolCallPart(b.id, b.name, json.RawMessage(b.text.String()))
	case b.reasoning:
		t := model.Thinking{Provider: ProviderName, Signature: b.signature}
		if len(b.redacted) > 0 {
			t.Encrypted = base64.StdEncoding.EncodeToString(b.redacted)
		}
		return model.ThinkingPart(b.text.String(), t)
	case b.text.Len() > 0:
		return model.TextPart(b.text.String())
	}
	return model.Part{}
}

// assembler folds ConverseStream events into blocks and reports deltas.
type assembler struct {
	deltas  model.DeltaHandler
	blocks  map[int32]*block
	calls   int
	stopped bool
	stop    types.StopReason
	usage   *types.TokenUsage
}

func (a *assembler) report(d model.Delta) {
	if a.deltas != nil {
		a.deltas(d)
	}
}

func (a *assembler) block(i *int32) *block {
	k := aws.ToInt32(i)
	b := a.blocks[k]
	if b == nil {
		b = &block{}
		a.blocks[k] = b
	}
	return b
}

func (a *assembler) add(ev types.ConverseStreamOutput) error {
	switch e := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		if s, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
			b := a.block(e.Value.ContentBlockIndex)
			b.tool, b.call = true, a.calls
			b.id, b.name = aws.ToString(s.Value.ToolUseId), aws.ToString(s.Value.Name)
			a.calls++
			a.report(model.Delta{Kind: model.DeltaToolCallStart, Index: b.call, Call: &model.ToolCall{ID: b.id, Name: b.name}})
		}
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		b := a.block(e.Value.ContentBlockIndex)
		switch d := e.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			b.text.WriteString(d.Value)
			if d.Value != "" {
				a.report(model.Delta{Kind: model.DeltaText, Text: d.Value})
			}
		case *types.ContentBlockDeltaMemberToolUse:
			if !b.tool {
				return &streamError{fmt.Errorf("malformed stream: toolUse delta for block %d without its start", aws.ToInt32(e.Value.ContentBlockIndex))}
			}
			in := aws.ToString(d.Value.Input)
			b.text.WriteString(in)
			if in != "" {
				a.report(model.Delta{Kind: model.DeltaToolCallArguments, Index: b.call, Text: in})
			}
		case *types.ContentBlockDeltaMemberReasoningContent:
			b.reasoning = true
			switch r := d.Value.(type) {
			case *types.ReasoningContentBlockDeltaMemberText:
				b.text.WriteString(r.Value)
				if r.Value != "" {
					a.report(model.Delta{Kind: model.DeltaThinking, Text: r.Value})
				}
			case *types.ReasoningContentBlockDeltaMemberSignature:
				b.signature += r.Value
			case *types.ReasoningContentBlockDeltaMemberRedactedContent:
				b.redacted = append(b.redacted, r.Value...)
			}
		default:
			return &streamError{fmt.Errorf("malformed stream: content block delta of unsupported type %T", d)}
		}
	case *types.ConverseStreamOutputMemberContentBlockStop:
		b := a.blocks[aws.ToInt32(e.Value.ContentBlockIndex)]
		if b == nil || !b.tool {
			return nil
		}
		p := b.part()
		if !json.Valid(p.ToolCall.Arguments) {
			return nil // message fails the response: no call to start
		}
		a.report(model.Delta{Kind: model.DeltaToolCallDone, Index: b.call, Call: p.ToolCall})
	case *types.ConverseStreamOutputMemberMessageStop:
		a.stopped, a.stop = true, e.Value.StopReason
	case *types.ConverseStreamOutputMemberMetadata:
		a.usage = e.Value.Usage
	}
	return nil
}
