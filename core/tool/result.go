package tool

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
)

// Result is what a tool produces on success. Each surface has one audience:
//   - Content is the raw result; the model sees it unless ModelContent is set.
//   - Metadata is public: it travels with the return in history and streams.
//   - AppValue is for application code, UserContent for user interfaces.
//   - ModelContent replaces Content in what the model sees.
//   - PrivateMetadata is host-only evidence; it never reaches Content or Metadata.
//   - Parts are rich content (text, images, audio, documents, resource
//     links); when set, the model sees them instead of Content.
//   - StructuredContent is the output as one JSON value, kept beside the
//     content the model reads (see ModelVisible and WithStructuredContent).
//
// The output constructors (ModelVisible, Rich, ModelError, HostOnly) build
// the common shapes; see output.go.
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
	// Parts, when not nil, are what the model reads, in order. A non-nil
	// empty list is an invalid output.
	Parts             []Part
	StructuredContent any
	// HostOnly marks an output that must never reach a model: an agent
	// that would send it fails its run instead (see HostOnly).
	HostOnly bool
	// Intents are durable actions the call declares instead of doing
	// (package intent): the agent realises them, exactly once, after it
	// has committed this result as the call's final attempt (see
	// SetIntents). Only a successful result carries them: a call that
	// pauses (approval_required, call_deferred) and declares intents is a
	// user_error, and a failed attempt's intents are discarded with it.
	Intents Intents
}

// Text returns a Result whose content is s.
func Text(s string) Result { return Result{Content: s} }

// JSON returns a Result whose content is v.
func JSON(v any) Result { return Result{Content: v} }

// Return is one tool call's outcome as it enters history: what the model
// sees (ToolCallID, Name, Content, IsError, Metadata) plus the application,
// user and private surfaces that providers never send.
//
// What the runtime decided about the call is typed, in Runtime, and is not
// part of Metadata in memory: code that acts on a return (the agent's retry
// accounting, its approvals and deferrals) reads Runtime, so no tool can
// steer it by putting a reserved key in its own metadata. The JSON form
// (MarshalJSON) writes Runtime into "metadata" under the reserved keys
// listed in metadata.go, exactly as hosts, exported state and providers
// have always read them; UnmarshalJSON reads them back.
type Return struct {
	ToolCallID      string         `json:"tool_call_id"`
	Name            string         `json:"name"`
	Content         any            `json:"content"`
	IsError         bool           `json:"is_error"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	AppValue        any            `json:"app_value,omitempty"`
	UserContent     any            `json:"user_content,omitempty"`
	PrivateMetadata map[string]any `json:"private_metadata,omitempty"`
	// Parts are the rich content of the output (see Result.Parts): when
	// set, models read them instead of Content.
	Parts []Part `json:"parts,omitempty"`
	// StructuredContent is the output's structured value, if any.
	StructuredContent any `json:"structured_content,omitempty"`
	// HostOnly marks an output no model may read. The agent never puts
	// such a return in history (its run fails instead), and the
	// model-visible projection (core/model's Visible) keeps none of its
	// content.
	HostOnly bool `json:"host_only,omitempty"`
	// Runtime is nil for a successful call that spent no budget, so the
	// common return stays small. Copies of a Return share it: replace it
	// rather than modify it once the return has been handed on. It
	// travels inside "metadata" on the wire, never as a field of its own:
	// see MarshalJSON.
	Runtime *Runtime `json:"-"`
}

// Runtime is what the runtime decided about a call: the contract between
// tools, which produce returns, and the agent, which acts on them.
type Runtime struct {
	// ErrorKind is the kind of a failed call, "" for a successful one.
	ErrorKind ErrorKind
	// Flags are the retry properties of the failure (FlagsOf(ErrorKind)
	// when the return was built). Flags.IsError is the same as
	// Return.IsError, which is where the wire carries it.
	Flags Flags
	// Retry and MaxRetries are set by the agent on a return that spent the
	// model-correction budget: the corrections of this tool so far in the
	// run (1 for the first) and the budget. Retry is 0 on every other
	// return.
	Retry      int
	MaxRetries int
	// Request is the metadata of an approval (ErrorKindApprovalRequired) or a
	// deferral (ErrorKindCallDeferred) request, reason included; nil for other
	// kinds.
	Request map[string]any
	// Arguments are the arguments of a paused call (approval or deferral)
	// as JSON: {} when the call had none, a JSON string of the raw text
	// when they were not JSON.
	Arguments json.RawMessage
	// Intents are the intents the call's final attempt declared
	// (Result.Intents), not realised yet. They are never serialised with
	// the return: the agent realises them and records their outcomes
	// under MetaIntents.
	Intents Intents
}

// ErrorKind returns the error kind recorded on the return, or "" for a
// successful one.
func (r *Return) ErrorKind() ErrorKind {
	if r.Runtime == nil {
		return ""
	}
	return r.Runtime.ErrorKind
}

// WireMetadata returns the metadata as serialised: Metadata plus Runtime
// under the reserved keys (Runtime wins over a key of the same name in
// Metadata). It is Metadata itself when Runtime is nil or empty, so the
// caller must not modify it.
func (r *Return) WireMetadata() map[string]any {
	rt := r.Runtime
	if rt == nil || rt.ErrorKind == "" && rt.Retry == 0 {
		return r.Metadata
	}
	md := make(map[string]any, len(r.Metadata)+12)
	maps.Copy(md, r.Metadata)
	if rt.ErrorKind != "" {
		md[MetaErrorKind] = string(rt.ErrorKind)
		md[MetaRetryable] = rt.Flags.Retryable
		md[MetaCorrectedInput] = rt.Flags.CorrectedInput
		md[MetaRuntimeRetryable] = rt.Flags.ModelRetryable
		md[MetaModelRetryable] = rt.Flags.ModelRetryable
		md[MetaUnexpected] = rt.Flags.Unexpected
	}
	if rt.Retry > 0 {
		md[MetaRetry] = rt.Retry
		md[MetaMaxRetries] = rt.MaxRetries
	}
	if key, argsKey := requestKeys(rt.ErrorKind); key != "" {
		md[MetaControlFlow] = string(rt.ErrorKind)
		md[key] = nonNilMap(rt.Request)
		args := rt.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		md[argsKey] = args
	}
	return md
}

// requestKeys names the metadata keys of a paused call's request and
// arguments, or "" for kinds that do not pause.
func requestKeys(k ErrorKind) (request, arguments string) {
	switch k {
	case ErrorKindApprovalRequired:
		return MetaApproval, MetaApprovalArguments
	case ErrorKindCallDeferred:
		return MetaDeferred, MetaDeferredArguments
	}
	return "", ""
}

// wireReturn is the JSON form of a Return, fields in the order they have
// always been written.
type wireReturn struct {
	ToolCallID        string         `json:"tool_call_id"`
	Name              string         `json:"name"`
	Content           any            `json:"content"`
	IsError           bool           `json:"is_error"`
	Metadata          map[string]any `json:"metadata,omitempty"`
	AppValue          any            `json:"app_value,omitempty"`
	UserContent       any            `json:"user_content,omitempty"`
	PrivateMetadata   map[string]any `json:"private_metadata,omitempty"`
	Parts             []Part         `json:"parts,omitempty"`
	StructuredContent any            `json:"structured_content,omitempty"`
	HostOnly          bool           `json:"host_only,omitempty"`
}

// MarshalJSON writes the return with Runtime inside "metadata" (see
// WireMetadata).
func (r Return) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireReturn{
		ToolCallID: r.ToolCallID, Name: r.Name, Content: r.Content, IsError: r.IsError,
		Metadata: r.WireMetadata(), AppValue: r.AppValue, UserContent: r.UserContent, PrivateMetadata: r.PrivateMetadata,
		Parts: r.Parts, StructuredContent: r.StructuredContent, HostOnly: r.HostOnly,
	})
}

// UnmarshalJSON reads a return written by MarshalJSON: the reserved keys
// of "metadata" fill Runtime and leave Metadata, so that a decoded return
// is the one that was encoded. Only a return whose metadata names an error
// kind gets a Runtime; the metadata of a successful call is kept as it is.
// Numbers decode as encoding/json's defaults do (float64), the arguments
// of a paused call stay the exact JSON text.
func (r *Return) UnmarshalJSON(data []byte) error {
	var w struct {
		wireReturn
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Return{ToolCallID: w.ToolCallID, Name: w.Name, Content: w.Content, IsError: w.IsError,
		AppValue: w.AppValue, UserContent: w.UserContent, PrivateMetadata: w.PrivateMetadata,
		Parts: w.Parts, StructuredContent: w.StructuredContent, HostOnly: w.HostOnly}
	if len(w.Metadata) == 0 {
		return nil
	}
	if err := json.Unmarshal(w.Metadata, &r.Metadata); err != nil {
		return err
	}
	return r.liftRuntime(w.Metadata)
}

// liftRuntime moves the reserved keys of r.Metadata into r.Runtime; raw is
// the metadata's JSON, which keeps a paused call's arguments exact.
func (r *Return) liftRuntime(raw json.RawMessage) error {
	md := r.Metadata
	kind, _ := md[MetaErrorKind].(string)
	if kind == "" {
		return nil
	}
	rt := &Runtime{ErrorKind: ErrorKind(kind)}
	r.Runtime = rt
	rt.Flags.IsError = r.IsError
	rt.Flags.Retryable, _ = md[MetaRetryable].(bool)
	rt.Flags.CorrectedInput, _ = md[MetaCorrectedInput].(bool)
	// The agent has always read runtime_retryable; model_retryable is its
	// twin for hosts.
	if b, ok := md[MetaRuntimeRetryable].(bool); ok {
		rt.Flags.ModelRetryable = b
	} else {
		rt.Flags.ModelRetryable, _ = md[MetaModelRetryable].(bool)
	}
	rt.Flags.Unexpected, _ = md[MetaUnexpected].(bool)
	for _, k := range [...]string{MetaErrorKind, MetaRetryable, MetaCorrectedInput, MetaRuntimeRetryable, MetaModelRetryable, MetaUnexpected} {
		delete(md, k)
	}
	retry, okRetry := wholeNumber(md[MetaRetry])
	maxRetries, okMax := wholeNumber(md[MetaMaxRetries])
	if okRetry && okMax && retry > 0 {
		// Both or neither: max_retries alone is the registry's own budget
		// of an exhausted execution failure, which stays in Metadata.
		rt.Retry, rt.MaxRetries = retry, maxRetries
		delete(md, MetaRetry)
		delete(md, MetaMaxRetries)
	}
	if key, argsKey := requestKeys(rt.ErrorKind); key != "" {
		rt.Request, _ = md[key].(map[string]any)
		var args map[string]json.RawMessage
		if err := json.Unmarshal(raw, &args); err != nil {
			return err
		}
		rt.Arguments = args[argsKey]
		delete(md, key)
		delete(md, argsKey)
		delete(md, MetaControlFlow)
	}
	return nil
}

// wholeNumber reads a decoded JSON number that is a whole int.
func wholeNumber(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		if n == math.Trunc(n) && math.Abs(n) <= 1<<53 {
			return int(n), true
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i), true
		}
	}
	return 0, false
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
	var rt *Runtime
	if Declares(res.Intents) {
		rt = &Runtime{Intents: res.Intents}
	}
	return Return{
		Runtime:           rt,
		ToolCallID:        call.ID,
		Name:              call.Name,
		Content:           content,
		IsError:           isErr,
		Metadata:          res.Metadata,
		AppValue:          res.AppValue,
		UserContent:       res.UserContent,
		PrivateMetadata:   res.PrivateMetadata,
		Parts:             res.Parts,
		StructuredContent: res.StructuredContent,
		HostOnly:          res.HostOnly,
	}
}

// ErrorReturn builds the return of a failed call: content is an object with
// the kind, message, guidance, retry flags and success:false; Runtime holds
// the kind, flags and (for approval and deferral) the request and the
// call's arguments; Metadata describes the error for hosts (tool, message,
// how_to_fix, timeout_ms); private metadata stays private.
//
// What content and Metadata say of the error (message, error text,
// guidance) is redacted (see Redact): models read both. When redaction
// changed the message, the full one goes to the private metadata, under
// MetaErrorMessage (ErrorMessage reads either).
func ErrorReturn(call Call, err error) Return {
	e := toError(err)
	full := e.Message
	if e.Tool == "" || e.Message != "" {
		c := *e
		if c.Tool == "" {
			c.Tool = call.Name
		}
		c.Message = Redact(c.Message)
		e = &c
	}
	f := FlagsOf(e.Kind)
	md := map[string]any{
		MetaTool:     e.Tool,
		MetaMessage:  e.Message,
		MetaHowToFix: e.HowToFix(),
	}
	// Content tells the model what the wire metadata tells hosts, with the
	// kind under "kind", the error text and success.
	content := map[string]any{
		MetaTool:             e.Tool,
		MetaMessage:          e.Message,
		MetaHowToFix:         e.HowToFix(),
		MetaRetryable:        f.Retryable,
		MetaCorrectedInput:   f.CorrectedInput,
		MetaRuntimeRetryable: f.ModelRetryable,
		MetaModelRetryable:   f.ModelRetryable,
		MetaUnexpected:       f.Unexpected,
		"kind":               string(e.Kind),
		"error":              e.Error(),
		"success":            false,
	}
	rt := &Runtime{ErrorKind: e.Kind, Flags: f}
	switch e.Kind {
	case ErrorKindTimeout:
		md[MetaTimeoutMS] = e.TimeoutMS
		content[MetaTimeoutMS] = e.TimeoutMS
	case ErrorKindApprovalRequired, ErrorKindCallDeferred:
		rt.Request = requestMetadata(e.Metadata)
		rt.Arguments = argumentsValue(call.Arguments)
	}
	private := maps.Clone(e.PrivateMetadata)
	if full != e.Message {
		if private == nil {
			private = make(map[string]any, 1)
		}
		private[MetaErrorMessage] = full
	}
	return Return{
		ToolCallID:      call.ID,
		Name:            call.Name,
		Content:         content,
		IsError:         f.IsError,
		Metadata:        md,
		PrivateMetadata: private,
		Runtime:         rt,
	}
}

// ErrorMessage returns the full message of the error a return reports:
// the private copy ErrorReturn keeps (MetaErrorMessage), else the message
// of its metadata, which is the redacted one; "" for a return that
// reports no error message.
func ErrorMessage(r Return) string {
	if s, ok := r.PrivateMetadata[MetaErrorMessage].(string); ok {
		return s
	}
	s, _ := r.Metadata[MetaMessage].(string)
	return s
}

// requestMetadata copies approval or deferral metadata, never returning nil
// so that the return always carries an object.
func requestMetadata(md map[string]any) map[string]any {
	if md == nil {
		return map[string]any{}
	}
	return maps.Clone(md)
}

// argumentsValue returns the call's arguments for Runtime.Arguments: a
// private copy of the JSON (the caller may reuse its buffer), the raw text
// as a JSON string when it is not JSON so that the return always
// serialises, and {} when there are none.
func argumentsValue(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{}`)
	}
	if !json.Valid(args) {
		b, _ := json.Marshal(string(args)) // a string always encodes
		return b
	}
	return slices.Clone(args)
}

// nonNilMap returns md, or an empty map for nil, so that a request is
// always written as an object.
func nonNilMap(md map[string]any) map[string]any {
	if md == nil {
		return map[string]any{}
	}
	return md
}
