package google

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// buildRequest maps a history and its params onto the body of one
// generateContent request.
func (m *Model) buildRequest(messages []model.Message, params model.Params) (*wireRequest, error) {
	mp := mapper{vertex: m.ep.vertex}
	if err := mp.messages(messages); err != nil {
		return nil, err
	}
	if len(mp.contents) == 0 {
		return nil, fmt.Errorf("%w: google: the request has no user or model content", model.ErrModel)
	}
	req := &wireRequest{Contents: mp.contents, SystemInstruction: mp.system}
	gc := &generationConfig{ThinkingConfig: m.thinking}
	if len(params.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, len(params.Tools))
		for i, d := range params.Tools {
			if d.Name == "" {
				return nil, fmt.Errorf("%w: google: tool definition %d has no name", model.ErrModel, i)
			}
			schema := d.Parameters
			if schema == nil {
				schema = tool.EmptySchema()
			}
			// parametersJsonSchema takes the JSON Schema as it is (the
			// OpenAPI subset of "parameters" would need a translation).
			decls[i] = &genai.FunctionDeclaration{Name: d.Name, Description: d.Description, ParametersJsonSchema: schema}
		}
		req.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if err := applySettings(req, gc, params.Settings); err != nil {
		return nil, err
	}
	if o := params.Output; o != nil {
		switch o.Mode {
		case model.OutputTool:
			// The output tool is among params.Tools.
		case model.OutputNative:
			if o.Schema == nil {
				return nil, fmt.Errorf("%w: google: native output %q without a schema", model.ErrModel, o.Name)
			}
			gc.ResponseMIMEType = "application/json"
			gc.ResponseJSONSchema = o.Schema
		default:
			return nil, fmt.Errorf("%w: google: unknown output mode %q", model.ErrModel, o.Mode)
		}
	}
	if !gc.isZero() {
		req.GenerationConfig = gc
	}
	return req, nil
}

// applySettings maps model settings onto the request. ParallelToolCalls has
// no Gemini counterpart and is ignored; ExtraHeaders and ExtraBody are
// applied when the request is sent.
func applySettings(req *wireRequest, gc *generationConfig, s model.Settings) error {
	if s.Temperature != nil {
		gc.Temperature = genai.Ptr(float32(*s.Temperature))
	}
	if s.TopP != nil {
		gc.TopP = genai.Ptr(float32(*s.TopP))
	}
	if s.MaxTokens != nil {
		if *s.MaxTokens < 0 || *s.MaxTokens > math.MaxInt32 {
			return fmt.Errorf("%w: google: max_tokens %d is out of range", model.ErrModel, *s.MaxTokens)
		}
		gc.MaxOutputTokens = int32(*s.MaxTokens)
	}
	if len(s.Stop) > 0 {
		gc.StopSequences = s.Stop
	}
	if s.Seed != nil {
		if *s.Seed < math.MinInt32 || *s.Seed > math.MaxInt32 {
			return fmt.Errorf("%w: google: seed %d does not fit Gemini's 32 bits", model.ErrModel, *s.Seed)
		}
		gc.Seed = genai.Ptr(int32(*s.Seed))
	}
	var fc *genai.FunctionCallingConfig
	switch s.ToolChoice {
	case "":
	case "auto":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}
	case "none":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}
	case "required":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}
	default:
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{s.ToolChoice}}
	}
	if fc != nil && len(req.Tools) > 0 {
		req.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
	}
	return nil
}

// mapper collects the system instruction and the contents of a request.
type mapper struct {
	vertex   bool
	system   *genai.Content
	contents []*genai.Content
	// results leads the user content being built (function responses
	// first); cur is the content being built.
	cur     *genai.Content
	results []*genai.Part
	// names maps the id of every call of the history to its tool's name:
	// a retry prompt names only the call, a functionResponse needs both.
	names map[string]string
}

func (mp *mapper) messages(messages []model.Message) error {
	lastIn := -1
	for i := range messages {
		if messages[i].Kind == model.KindRequest {
			lastIn = i
		}
	}
	for i := range messages {
		msg := &messages[i]
		switch msg.Kind {
		case model.KindRequest:
			mp.open(genai.RoleUser)
			for j := range msg.Parts {
				if err := mp.requestPart(&msg.Parts[j]); err != nil {
					return err
				}
			}
			if i == lastIn && msg.Instructions != "" {
				mp.addSystem(msg.Instructions)
			}
		case model.KindResponse:
			mp.open(genai.RoleModel)
			if err := mp.responseParts(msg.Parts); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: google: unknown message kind %q", model.ErrModel, msg.Kind)
		}
	}
	mp.flush()
	return nil
}

// open starts a content of role unless the current one has it: Gemini
// wants user and model turns to alternate.
func (mp *mapper) open(role string) {
	if mp.cur != nil && mp.cur.Role == role {
		return
	}
	mp.flush()
	if n := len(mp.contents); n > 0 && mp.contents[n-1].Role == role {
		// The turn between was empty (a response of a refusal only):
		// the last content goes on.
		mp.cur, mp.contents = mp.contents[n-1], mp.contents[:n-1]
		return
	}
	mp.cur = &genai.Content{Role: role}
}

func (mp *mapper) flush() {
	if mp.cur == nil {
		return
	}
	parts := append(mp.results, mp.cur.Parts...)
	if len(parts) > 0 {
		mp.cur.Parts = parts
		mp.contents = append(mp.contents, mp.cur)
	}
	mp.cur, mp.results = nil, nil
}

func (mp *mapper) addSystem(text string) {
	if text == "" {
		return
	}
	if mp.system == nil {
		mp.system = &genai.Content{Role: genai.RoleUser}
	}
	mp.system.Parts = append(mp.system.Parts, &genai.Part{Text: text})
}

func (mp *mapper) requestPart(p *model.Part) error {
	switch p.Kind {
	case model.KindSystemPrompt, model.KindInstruction:
		mp.addSystem(p.Text)
	case model.KindUserPrompt:
		for _, c := range p.Content {
			if c.Kind != "text" {
				return fmt.Errorf("%w: google: user content of kind %q is not supported", model.ErrModel, c.Kind)
			}
			if c.Text != "" {
				mp.cur.Parts = append(mp.cur.Parts, &genai.Part{Text: c.Text})
			}
		}
	case model.KindToolReturn:
		fr, err := functionResponseOf(p.Return, mp.vertex)
		if err != nil {
			return err
		}
		mp.results = append(mp.results, &genai.Part{FunctionResponse: fr})
	case model.KindRetryPrompt:
		name, ok := mp.names[p.ToolCallID]
		if p.ToolCallID != "" && ok {
			fr := &genai.FunctionResponse{Name: name, Response: map[string]any{"error": p.Text}}
			if !isGenerated(p.ToolCallID) {
				fr.ID = p.ToolCallID
			}
			mp.results = append(mp.results, &genai.Part{FunctionResponse: fr})
		} else if p.Text != "" {
			mp.cur.Parts = append(mp.cur.Parts, &genai.Part{Text: p.Text})
		}
	case model.KindText, model.KindToolCall, model.KindThinking, model.KindRefusal:
		return fmt.Errorf("%w: google: %s part in a request", model.ErrModel, p.Kind)
	default:
		return fmt.Errorf("%w: google: unknown part kind %q", model.ErrModel, p.Kind)
	}
	return nil
}

// responseParts maps an earlier response: text, function calls, and the
// thought signatures Gemini gave (a signed thought as a thought part, a
// signature alone on the part that followed it).
func (mp *mapper) responseParts(parts []model.Part) error {
	var pending []byte
	first := len(mp.cur.Parts)
	attach := func(gp *genai.Part) {
		if pending != nil {
			gp.ThoughtSignature, pending = pending, nil
		}
		mp.cur.Parts = append(mp.cur.Parts, gp)
	}
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case model.KindText:
			if p.Text != "" {
				attach(&genai.Part{Text: p.Text})
			}
		case model.KindToolCall:
			if p.ToolCall == nil {
				return fmt.Errorf("%w: google: tool_call part without a call", model.ErrModel)
			}
			var args map[string]any
			if err := json.Unmarshal(p.ToolCall.Arguments, &args); err != nil {
				// Malformed arguments were answered with a retry prompt;
				// the API only takes an object here.
				args = map[string]any{}
			}
			fc := &genai.FunctionCall{Name: p.ToolCall.Name, Args: args}
			if !isGenerated(p.ToolCall.ID) {
				fc.ID = p.ToolCall.ID
			}
			if mp.names == nil {
				mp.names = map[string]string{}
			}
			mp.names[p.ToolCall.ID] = p.ToolCall.Name
			attach(&genai.Part{FunctionCall: fc})
		case model.KindThinking:
			t := p.Thinking
			if t == nil || t.Provider != ProviderName || t.Signature == "" {
				continue // only Gemini can read its signatures; unsigned thoughts are not needed
			}
			sig, err := base64.StdEncoding.DecodeString(t.Signature)
			if err != nil {
				return fmt.Errorf("%w: google: a thinking part's signature is not base64: %w", model.ErrModel, err)
			}
			if p.Text != "" {
				mp.cur.Parts = append(mp.cur.Parts, &genai.Part{Text: p.Text, Thought: true, ThoughtSignature: sig})
			} else {
				pending = sig
			}
		case model.KindRefusal:
			// The refusal is the API's verdict, not the model's words.
		case model.KindSystemPrompt, model.KindInstruction, model.KindUserPrompt, model.KindToolReturn, model.KindRetryPrompt:
			return fmt.Errorf("%w: google: %s part in a response", model.ErrModel, p.Kind)
		default:
			return fmt.Errorf("%w: google: unknown part kind %q", model.ErrModel, p.Kind)
		}
	}
	if pending != nil {
		// A signature after the last part: Gemini gave it on an empty
		// part, which the API does not take back; it goes on the last
		// unsigned part of the response.
		for i := len(mp.cur.Parts) - 1; i >= first; i-- {
			if gp := mp.cur.Parts[i]; len(gp.ThoughtSignature) == 0 && !gp.Thought {
				gp.ThoughtSignature = pending
				break
			}
		}
	}
	return nil
}

// returnValue is the JSON value of a plain tool return's content: a string
// as is, JSON text decoded, anything else as it encodes.
func returnValue(content any) (any, error) {
	switch c := content.(type) {
	case nil:
		return "", nil
	case string:
		return c, nil
	case json.RawMessage:
		var v any
		if err := json.Unmarshal(c, &v); err != nil {
			return strings.TrimSpace(string(c)), nil
		}
		return v, nil
	}
	b, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}
