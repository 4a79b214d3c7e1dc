package tool

import (
	"encoding/json"
	"maps"
	"unicode/utf8"
)

// DefaultMaxOutputBytes is the largest output a registry accepts from one
// call unless told otherwise (see Registry.SetMaxOutputBytes): 8 MiB of
// JSON, counted over every surface of the Result but its private metadata.
const DefaultMaxOutputBytes = 8 << 20

// The output constructors build the Result of the common output shapes: a
// Result is what a tool returns, and these say which boundary the output
// is meant to cross. A tool.Error, in contrast, means the tool itself
// failed; ModelError is a completed call whose application said no.
//
// Parts given to Rich, ModelError and HostOnly are kept as given (not
// copied); each needs at least one part, and every part must pass
// Part.Validate: otherwise the call ends as invalid_output.

// ModelVisible returns the output of a tool whose result is one ordinary
// value: v is the structured content and the content, so the model reads
// it as text (a string as is, anything else as its JSON), and hosts keep
// the value itself.
func ModelVisible(v any) Result { return Result{Content: v, StructuredContent: v} }

// Rich returns an output of ordered content parts (text, images, audio,
// documents, resource links), which providers that can send them natively
// do, and the others refuse rather than flatten.
func Rich(parts ...Part) Result { return Result{Parts: nonNilParts(parts)} }

// ModelError returns a completed call whose application rejected the
// request, for the model to read and recover from: is_error is set, but it
// is no tool failure (nothing is retried, no budget is spent).
func ModelError(parts ...Part) Result { return Result{Parts: nonNilParts(parts), IsError: true} }

// HostOnly returns an output meant for the application only. It never
// reaches a model: an agent whose model would receive it fails the run
// with a ToolOutputNotVisible error (core/agent), whatever the tool's
// error handling, and the call's effects stay done. Registry.Execute hands
// it to a direct caller as any other return.
func HostOnly(parts ...Part) Result { return Result{Parts: nonNilParts(parts), HostOnly: true} }

// nonNilParts keeps an empty list distinguishable from "no parts", so
// that an output built without parts is refused instead of read as a
// plain (null) content.
func nonNilParts(parts []Part) []Part {
	if parts == nil {
		return []Part{}
	}
	return parts
}

// WithStructuredContent returns r with v as its structured content (a
// value the application validated separately, kept beside the parts).
func (r Result) WithStructuredContent(v any) Result {
	r.StructuredContent = v
	return r
}

// WithMetadata returns r with metadata key set to v, in a copy of r's
// metadata map. Keys are plain strings; namespace your own ("app.key") to
// stay clear of the reserved ones (see metadata.go).
func (r Result) WithMetadata(key string, v any) Result {
	md := make(map[string]any, len(r.Metadata)+1)
	maps.Copy(md, r.Metadata)
	md[key] = v
	r.Metadata = md
	return r
}

// SetMaxOutputBytes sets the largest output one call may return, counted
// as by the default (see DefaultMaxOutputBytes); larger outputs end the
// call as invalid_output. n ≤ 0 restores the default.
func (r *Registry) SetMaxOutputBytes(n int) { r.maxOutput = n }

// MaxOutputBytes returns the registry's output limit.
func (r *Registry) MaxOutputBytes() int {
	if r.maxOutput <= 0 {
		return DefaultMaxOutputBytes
	}
	return r.maxOutput
}

// successReturn is the return of a call that produced res: SuccessReturn,
// or an invalid_output error return when res breaks the output rules.
func (r *Registry) successReturn(call Call, res Result) Return {
	if err := CheckOutput(res, r.MaxOutputBytes()); err != nil {
		return ErrorReturn(call, err)
	}
	return SuccessReturn(call, res)
}

// CheckOutput returns an invalid_output *Error unless res is an output the
// runtime passes on: every part valid, a parts list (when set) not empty,
// every surface JSON, and the whole no larger than maxBytes. The sizes of
// strings, raw JSON and parts are counted without encoding them.
func CheckOutput(res Result, maxBytes int) *Error {
	if res.Parts != nil && len(res.Parts) == 0 {
		return InvalidOutput("a rich output needs at least one content part")
	}
	total := 0
	for i := range res.Parts {
		if err := res.Parts[i].Validate(); err != nil {
			return InvalidOutput("content part %d: %v", i, err)
		}
		total += partSize(&res.Parts[i])
	}
	for _, s := range [...]struct {
		name string
		v    any
	}{{"content", res.Content}, {"model_content", res.ModelContent}, {"structured_content", res.StructuredContent},
		{"app_value", res.AppValue}, {"user_content", res.UserContent}, {"metadata", res.Metadata}} {
		if s.name != "content" && (s.v == nil || s.name == "metadata" && len(res.Metadata) == 0) {
			continue // omitted from the return
		}
		n, err := jsonSize(s.v)
		if err != nil {
			return InvalidOutput("the %s is not JSON: %v", s.name, err)
		}
		if total += n; total > maxBytes {
			break
		}
	}
	if total > maxBytes {
		return InvalidOutput("the output has more than %d bytes (the limit of one call's output)", maxBytes)
	}
	return nil
}

// jsonSize is the length of v's JSON encoding, computed without encoding
// the common large values (strings and raw JSON).
func jsonSize(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 4, nil
	case json.RawMessage:
		if x == nil {
			return 4, nil
		}
		return len(x), nil
	case string:
		return quotedLen(x), nil
	case bool:
		return 5, nil
	}
	b, err := json.Marshal(v)
	return len(b), err
}

// quotedLen is the length of s as a JSON string, escaped as encoding/json
// escapes it.
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// partSize bounds the JSON size of a valid part: its variable fields
// exactly, its fixed keys by a constant.
func partSize(p *Part) int {
	const keys = 64
	n := keys + quotedLen(p.Text) + quotedLen(p.Name)
	if s := p.Source; s != nil {
		n += keys + len(s.URL) + len(s.MediaType) + len(s.Data)
		if s.Artifact != nil {
			n += 512 // a reference: scope, two digests, a type, a name, times
		}
	}
	if l := p.Link; l != nil {
		n += keys + quotedLen(l.URI) + quotedLen(l.Name) + quotedLen(l.Title) + quotedLen(l.Description) + len(l.MediaType)
	}
	return n
}
