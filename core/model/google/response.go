package google

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// generatedIDPrefix starts the ids this package gives function calls that
// Gemini sent without one. Such ids are never sent back: Gemini matches
// those calls and their responses by name and order.
const generatedIDPrefix = "gemini-call-"

// assembler builds one response from the whole answer or, chunk by chunk,
// from a stream, reporting deltas (when not nil) as parts arrive. Both
// paths share it, so a streamed response is the message a whole one is.
type assembler struct {
	deltas model.DeltaHandler
	// parts are the candidate's parts, consecutive text (or thought) parts
	// merged; ids the ids of its function calls, in order.
	parts []*genai.Part
	ids   []string
	// idBase names the calls of this response that came without an id.
	idBase        string
	responseID    string
	modelVersion  string
	finish        genai.FinishReason
	finishMessage string
	blocked       string
	usage         *genai.GenerateContentResponseUsageMetadata
	chunks        int
}

// add takes one response (or chunk).
func (a *assembler) add(r *genai.GenerateContentResponse) error {
	if r == nil {
		return nil
	}
	a.chunks++
	if a.responseID == "" {
		a.responseID = r.ResponseID
	}
	if r.ModelVersion != "" {
		a.modelVersion = r.ModelVersion
	}
	if r.UsageMetadata != nil {
		a.usage = r.UsageMetadata // cumulative in a stream: the last wins
	}
	if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
		a.blocked = string(pf.BlockReason)
		if pf.BlockReasonMessage != "" {
			a.blocked += ": " + pf.BlockReasonMessage
		}
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		return nil
	}
	c := r.Candidates[0]
	if c.FinishReason != "" {
		a.finish = c.FinishReason
		a.finishMessage = c.FinishMessage
	}
	if c.Content == nil {
		return nil
	}
	for _, p := range c.Content.Parts {
		if p == nil {
			continue
		}
		if err := a.addPart(p); err != nil {
			return err
		}
	}
	return nil
}

func (a *assembler) addPart(p *genai.Part) error {
	switch {
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		if fc.Name == "" {
			return fmt.Errorf("%w: google: a function call without a name", model.ErrModel)
		}
		i := len(a.ids)
		id := fc.ID
		if id == "" {
			id = generatedIDPrefix + a.base() + "-" + strconv.Itoa(i)
		}
		a.ids = append(a.ids, id)
		cp := *p
		a.parts = append(a.parts, &cp)
		if a.deltas != nil {
			args, err := argsJSON(fc.Args)
			if err != nil {
				return err
			}
			a.deltas(model.Delta{Kind: model.DeltaToolCallStart, Index: i, Call: &model.ToolCall{ID: id, Name: fc.Name}})
			a.deltas(model.Delta{Kind: model.DeltaToolCallArguments, Index: i, Text: string(args)})
			call := model.ToolCallPart(id, fc.Name, args).ToolCall
			a.deltas(model.Delta{Kind: model.DeltaToolCallDone, Index: i, Call: call})
		}
	case isTextPart(p):
		if p.Text == "" && len(p.ThoughtSignature) == 0 {
			return nil
		}
		if n := len(a.parts); n > 0 {
			last := a.parts[n-1]
			if isTextPart(last) && last.Thought == p.Thought && (len(last.ThoughtSignature) == 0 || len(p.ThoughtSignature) == 0) {
				last.Text += p.Text
				if len(last.ThoughtSignature) == 0 {
					last.ThoughtSignature = p.ThoughtSignature
				}
				a.report(p)
				return nil
			}
		}
		cp := genai.Part{Text: p.Text, Thought: p.Thought, ThoughtSignature: p.ThoughtSignature}
		a.parts = append(a.parts, &cp)
		a.report(p)
	default:
		return fmt.Errorf("%w: google: unsupported response part (%s)", model.ErrModel, partKind(p))
	}
	return nil
}

func (a *assembler) report(p *genai.Part) {
	if a.deltas == nil || p.Text == "" {
		return
	}
	kind := model.DeltaText
	if p.Thought {
		kind = model.DeltaThinking
	}
	a.deltas(model.Delta{Kind: kind, Text: p.Text})
}

// base is what names the calls Gemini sent without an id: the response's
// id, else a random one (the same for the whole response).
func (a *assembler) base() string {
	if a.idBase == "" {
		a.idBase = a.responseID
		if a.idBase == "" {
			var b [6]byte
			_, _ = rand.Read(b[:])
			a.idBase = hex.EncodeToString(b[:])
		}
	}
	return a.idBase
}

// isTextPart reports whether p holds only text (or a thought), with or
// without a signature.
func isTextPart(p *genai.Part) bool {
	return p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil && p.FileData == nil &&
		p.ExecutableCode == nil && p.CodeExecutionResult == nil && p.ToolCall == nil && p.ToolResponse == nil
}

// partKind names the data of a part this package does not read.
func partKind(p *genai.Part) string {
	switch {
	case p.InlineData != nil:
		return "inlineData " + p.InlineData.MIMEType
	case p.FileData != nil:
		return "fileData"
	case p.ExecutableCode != nil:
		return "executableCode"
	case p.CodeExecutionResult != nil:
		return "codeExecutionResult"
	case p.FunctionResponse != nil:
		return "functionResponse"
	case p.ToolCall != nil:
		return "toolCall"
	case p.ToolResponse != nil:
		return "toolResponse"
	}
	return "unknown"
}

// argsJSON encodes a call's arguments (none: {}).
func argsJSON(args map[string]any) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("%w: google: function call arguments: %w", model.ErrModel, err)
	}
	return b, nil
}

// message maps an assembled response onto a response message.
func (m *Model) message(a *assembler) (model.Message, error) {
	parts := make([]model.Part, 0, len(a.parts)+1)
	calls := 0
	for _, p := range a.parts {
		var sig string
		if len(p.ThoughtSignature) > 0 {
			sig = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
		}
		switch {
		case p.FunctionCall != nil:
			if sig != "" {
				parts = append(parts, signaturePart(sig))
			}
			args, err := argsJSON(p.FunctionCall.Args)
			if err != nil {
				return model.Message{}, err
			}
			parts = append(parts, model.ToolCallPart(a.ids[calls], p.FunctionCall.Name, args))
			calls++
		case p.Thought:
			parts = append(parts, model.ThinkingPart(p.Text, model.Thinking{Provider: ProviderName, Signature: sig}))
		default:
			if sig != "" {
				parts = append(parts, signaturePart(sig))
			}
			if p.Text != "" {
				parts = append(parts, model.TextPart(p.Text))
			}
		}
	}
	finish := finishReason(a.finish, calls > 0)
	if a.blocked != "" && a.finish == "" {
		finish = model.FinishContentFilter
		parts = append(parts, model.RefusalPart("the prompt was blocked ("+a.blocked+")"))
	} else if finish == model.FinishContentFilter && len(parts) == 0 {
		text := a.finishMessage
		if text == "" {
			text = "the response was blocked (" + string(a.finish) + ")"
		}
		parts = append(parts, model.RefusalPart(text))
	}
	msg := model.Response(parts...)
	msg.Usage = usageOf(a.usage)
	msg.ModelName = a.modelVersion
	if msg.ModelName == "" {
		msg.ModelName = m.name
	}
	msg.FinishReason = finish
	msg.Provider = m.provider
	msg.ResponseID = a.responseID
	return msg, nil
}

// signaturePart is the thinking part that keeps the thought signature
// Gemini attached to the text or function call part after it; it is sent
// back on that part.
func signaturePart(sig string) model.Part {
	return model.ThinkingPart("", model.Thinking{Provider: ProviderName, Signature: sig})
}

// usageOf maps usageMetadata: the prompt (cached tokens included) and the
// tool-use prompt are input; the candidates and the thoughts are output,
// the thoughts also as reasoning.
func usageOf(u *genai.GenerateContentResponseUsageMetadata) *model.Usage {
	out := &model.Usage{Requests: 1}
	if u == nil {
		return out
	}
	out.InputTokens = int(u.PromptTokenCount) + int(u.ToolUsePromptTokenCount)
	out.OutputTokens = int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount)
	out.CacheReadTokens = int(u.CachedContentTokenCount)
	out.ReasoningTokens = int(u.ThoughtsTokenCount)
	return out
}

// finishReason maps a finish reason onto the Finish* constants; STOP with
// function calls is tool_calls, and an unknown or missing one maps to ""
// (tool_calls when there are calls) rather than to a guess.
func finishReason(r genai.FinishReason, calls bool) string {
	switch r {
	case genai.FinishReasonStop:
		if calls {
			return model.FinishToolCalls
		}
		return model.FinishStop
	case genai.FinishReasonMaxTokens:
		return model.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonLanguage, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation, genai.FinishReasonModelArmor:
		return model.FinishContentFilter
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall, genai.FinishReasonTooManyToolCalls,
		genai.FinishReasonMissingThoughtSignature, genai.FinishReasonMalformedResponse, genai.FinishReasonOther:
		return model.FinishError
	}
	if calls {
		return model.FinishToolCalls
	}
	return ""
}

// isGenerated reports whether id was made by this package for a call
// Gemini sent without one.
func isGenerated(id string) bool { return strings.HasPrefix(id, generatedIDPrefix) }
