package tool

import (
	"encoding/json"
	"maps"
	"slices"
)

// Result is what a tool produces on success. Each surface has one audience:
//   - Content is the raw result; the model sees it unless ModelContent is set.
//   - Metadata is public: it travels with the return in history and streams.
//   - AppValue is for application code, UserContent for user interfaces.
//   - ModelContent replaces Content in what the model sees.
//   - PrivateMetadata is host-only evidence; it never reaches Content or Metadata.
type Result struct {
	Content         any
	Metadata        map[string]any
	AppValue        any
	ModelContent    any
	UserContent     any
	PrivateMetadata map[string]any
	// IsError marks a successful call whose result the model should read as
	// an error, without any retry semantics.
	IsError bool
}

// Text returns a Result whose content is s.
func Text(s string) Result { return Result{Content: s} }

// JSON returns a Result whose content is v.
func JSON(v any) Result { return Result{Content: v} }

// Return is one tool call's outcome as it enters history: what the model
// sees (ToolCallID, Name, Content, IsError, Metadata) plus the application,
// user and private surfaces that providers never send.
type Return struct {
	ToolCallID      string         `json:"tool_call_id"`
	Name            string         `json:"name"`
	Content         any            `json:"content"`
	IsError         bool           `json:"is_error"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	AppValue        any            `json:"app_value,omitempty"`
	UserContent     any            `json:"user_content,omitempty"`
	PrivateMetadata map[string]any `json:"private_metadata,omitempty"`
}

// ErrorKind returns the error kind recorded on the return, or "" for a
// successful one.
func (r *Return) ErrorKind() ErrorKind {
	k, _ := r.Metadata["error_kind"].(string)
	return ErrorKind(k)
}

// SuccessReturn builds the return of a successful call.
func SuccessReturn(call Call, res Result) Return {
	content := res.Content
	if res.ModelContent != nil {
		content = res.ModelContent
	}
	isErr := res.IsError
	if b, ok := res.Metadata[MetaResultIsError].(bool); ok && b {
		isErr = true
	}
	return Return{
		ToolCallID:      call.ID,
		Name:            call.Name,
		Content:         content,
		IsError:         isErr,
		Metadata:        res.Metadata,
		AppValue:        res.AppValue,
		UserContent:     res.UserContent,
		PrivateMetadata: res.PrivateMetadata,
	}
}

// ErrorReturn builds the return of a failed call: content is an object with
// the kind, message, guidance, retry flags and success:false; metadata repeats
// it with error_kind; private metadata stays private.
func ErrorReturn(call Call, err error) Return {
	e := toError(err)
	if e.Tool == "" {
		c := *e
		c.Tool = call.Name
		e = &c
	}
	f := FlagsOf(e.Kind)
	// Metadata describes the error for hosts; content tells the model the
	// same, with the kind under "kind", the full error text and success.
	md := map[string]any{
		"error_kind":                     string(e.Kind),
		"tool":                           e.Tool,
		"message":                        e.Message,
		"how_to_fix":                     e.HowToFix(),
		"retryable":                      f.Retryable,
		"retry_requires_corrected_input": f.CorrectedInput,
		"runtime_retryable":              f.ModelRetryable,
		"model_retryable":                f.ModelRetryable,
		"unexpected":                     f.Unexpected,
	}
	content := maps.Clone(md)
	delete(content, "error_kind")
	content["kind"] = string(e.Kind)
	content["error"] = e.Error()
	content["success"] = false
	switch e.Kind {
	case ErrTimeout:
		md["timeout_ms"] = e.TimeoutMS
		content["timeout_ms"] = e.TimeoutMS
	case ErrApprovalRequired:
		md["control_flow"] = string(ErrApprovalRequired)
		md["approval"] = requestMetadata(e.Metadata)
		md["starweaver.approval_tool_arguments"] = argumentsValue(call.Arguments)
	case ErrCallDeferred:
		md["control_flow"] = string(ErrCallDeferred)
		md["deferred"] = requestMetadata(e.Metadata)
		md["starweaver.deferred_tool_arguments"] = argumentsValue(call.Arguments)
	}
	return Return{
		ToolCallID:      call.ID,
		Name:            call.Name,
		Content:         content,
		IsError:         f.IsError,
		Metadata:        md,
		PrivateMetadata: maps.Clone(e.PrivateMetadata),
	}
}

// requestMetadata copies approval or deferral metadata, never returning nil
// so that the return always carries an object.
func requestMetadata(md map[string]any) map[string]any {
	if md == nil {
		return map[string]any{}
	}
	return maps.Clone(md)
}

// argumentsValue returns the call's arguments for metadata: a private copy
// of the JSON (the caller may reuse its buffer), the raw text as a string
// when it is not JSON so that the return always serialises, and {} when
// there are none.
func argumentsValue(args json.RawMessage) any {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		return string(args)
	}
	return slices.Clone(args)
}
