package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// begin applies what both APIs share before a request: the missing-key
// check, the timeout (the model's and the request's, the shorter winning,
// over every retry) and the extra headers and body of the settings.
func (o *resolved) begin(ctx context.Context, s model.Settings) (context.Context, context.CancelFunc, []option.RequestOption, error) {
	if o.noKey {
		return nil, nil, nil, o.missingKey()
	}
	timeout := o.timeout
	if s.TimeoutMS > 0 {
		if d := time.Duration(s.TimeoutMS) * time.Millisecond; timeout == 0 || d < timeout {
			timeout = d
		}
	}
	cancel := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	ropts := []option.RequestOption{option.WithMiddleware(o.policy.Do)}
	if len(s.ExtraHeaders) > 0 {
		for _, k := range sortedKeys(s.ExtraHeaders) {
			ropts = append(ropts, option.WithHeader(k, s.ExtraHeaders[k]))
		}
	}
	if len(s.ExtraBody) > 0 {
		for _, k := range sortedKeys(s.ExtraBody) {
			ropts = append(ropts, option.WithJSONSet(sjsonKey(k), s.ExtraBody[k]))
		}
	}
	return ctx, cancel, ropts, nil
}

// redact masks the credentials of the model and of the request's extra
// headers in err (see model.Redactor); every error a model returns passes
// here.
func (o *resolved) redact(err error, s model.Settings) error {
	if err == nil {
		return nil
	}
	r := o.redactor
	if len(s.ExtraHeaders) > 0 {
		r = r.With(model.CredentialHeaderValues(s.ExtraHeaders)...)
	}
	return r.Error(err)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sjsonKey escapes a top-level body key for option.WithJSONSet, whose keys
// are sjson paths: "a.b" names the key "a.b", not a nested one.
func sjsonKey(k string) string {
	if !strings.ContainsAny(k, ".*?|#@\\:!=<>%") {
		return k
	}
	var b strings.Builder
	for _, r := range k {
		if strings.ContainsRune(".*?|#@\\:!=<>%", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// returnText is the text a tool result is sent as: a string content as is,
// any other content as JSON text. An error return whose content is a bare
// string says so, since neither API has an error flag on tool results (the
// runtime's error contents are objects that already carry kind and
// success: false).
func returnText(r *tool.Return) (string, error) {
	if r == nil {
		return "", fmt.Errorf("%w: tool_return part without a return", model.ErrModel)
	}
	if s, ok := model.StringContent(r.Content); ok {
		if r.IsError {
			return "Error: " + s, nil
		}
		return s, nil
	}
	if r.Content == nil {
		if r.IsError {
			return "Error", nil
		}
		return "null", nil
	}
	b, err := json.Marshal(r.Content)
	if err != nil {
		return "", fmt.Errorf("%w: tool return %q of call %q: content is not JSON: %w", model.ErrModel, r.Name, r.ToolCallID, err)
	}
	return string(b), nil
}

// argumentsText is the text of a call's arguments as the API carries them.
// Arguments kept as a JSON string (the model sent text that was not JSON)
// are sent back as that text, exactly as the model wrote it.
func argumentsText(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	if args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil {
			return s
		}
	}
	return string(args)
}

// parseArguments turns the API's arguments text into ToolCall.Arguments:
// valid JSON as is (empty as {}), anything else as a JSON string holding the
// text, so that history stays valid JSON and the runtime answers the call
// with invalid_arguments instead of failing the run.
func parseArguments(text string) json.RawMessage {
	t := strings.TrimSpace(text)
	if t == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(text)
	return b
}

// userTexts returns the text items of a user prompt, failing on an item kind
// it cannot carry (there is no media in core/model yet; when there is, it
// must fail here rather than be dropped).
func userTexts(p model.Part) ([]string, error) {
	out := make([]string, 0, len(p.Content))
	for _, c := range p.Content {
		switch c.Kind {
		case "text":
			out = append(out, c.Text)
		default:
			return nil, fmt.Errorf("%w: user prompt item of kind %q cannot be sent to this model", model.ErrModel, c.Kind)
		}
	}
	return out, nil
}

// lastInstructions returns the instructions of the last request that has
// any: instructions describe the current run, so earlier runs' are not
// repeated.
func lastInstructions(messages []model.Message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].Kind == model.KindRequest && messages[i].Instructions != "" {
			return messages[i].Instructions
		}
	}
	return ""
}

// finishReason maps a Chat Completions finish reason (Responses reasons are
// mapped where they are read).
func finishReason(r string) string {
	switch r {
	case "length":
		return model.FinishLength
	case "tool_calls", "function_call":
		return model.FinishToolCalls
	case "content_filter":
		return model.FinishContentFilter
	default:
		return model.FinishStop
	}
}

// strictTools indexes the original schemas of the strict tools of a
// request, to undo the nulls strict mode forced into their arguments.
func strictTools(defs []tool.Definition) map[string]map[string]any {
	var m map[string]map[string]any
	for _, d := range defs {
		if d.IsStrict() {
			if m == nil {
				m = make(map[string]map[string]any)
			}
			m[d.Name] = d.Parameters
		}
	}
	return m
}

// toolCallPart builds a tool_call part from the API's id, name and
// arguments text.
func toolCallPart(id, name, args string, strict map[string]map[string]any) model.Part {
	a := parseArguments(args)
	if s, ok := strict[name]; ok && len(a) > 0 && a[0] == '{' {
		a = dropAddedNulls(s, a)
	}
	return model.ToolCallPart(id, name, a)
}
