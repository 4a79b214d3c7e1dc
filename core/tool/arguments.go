package tool

import (
	"encoding/json"
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/jsonscan"
)

var emptyObject = json.RawMessage(`{}`)

// argumentLimits are MaxArgumentDepth, MaxNumberLength and UTF-8, checked
// in the same pass as the JSON grammar.
func argumentLimits() jsonscan.Limits {
	return jsonscan.Limits{MaxDepth: MaxArgumentDepth, MaxNumberLength: MaxNumberLength, RequireUTF8: true}
}

// checkArguments checks that a call's arguments are a JSON object within
// the argument limits (see MaxArgumentDepth) and returns the text to hand
// to the tool: empty and null arguments mean {}. It reads the text once
// and allocates nothing unless it refuses it.
func checkArguments(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) > MaxArgumentBytes {
		// Refused before reading, so the size bounds the work too.
		return nil, InvalidArguments("tool arguments are %d bytes; the limit is %d", len(raw), MaxArgumentBytes)
	}
	s := jsonscan.New(raw, argumentLimits())
	if s.AtEnd() {
		return emptyObject, nil
	}
	kind := s.Peek()
	s.Skip()
	if !s.End() {
		return nil, argumentsError(raw, s.Err())
	}
	switch kind {
	case jsonscan.Object:
		return raw, nil
	case jsonscan.Null:
		return emptyObject, nil
	}
	return nil, InvalidArguments("tool arguments must be a JSON object, got %s", jsonKind(kind))
}

// argumentsError explains why the scanner refused raw. Broken JSON is
// reported as such even where a limit was met first, with encoding/json's
// message, which says what it expected.
func argumentsError(raw []byte, err error) error {
	if errors.Is(err, jsonscan.ErrSyntax) || !json.Valid(raw) {
		var v any
		uerr := json.Unmarshal(raw, &v)
		if uerr == nil { // unreachable: the scanner and encoding/json agree (FuzzScan)
			uerr = err
		}
		return InvalidArguments("tool arguments must be valid JSON before execution: %v", uerr)
	}
	switch {
	case errors.Is(err, jsonscan.ErrTooDeep):
		return InvalidArguments("tool arguments nest deeper than %d levels", MaxArgumentDepth)
	case errors.Is(err, jsonscan.ErrNumberTooLong):
		return InvalidArguments("tool arguments hold a number longer than %d characters", MaxNumberLength)
	case errors.Is(err, jsonscan.ErrInvalidUTF8):
		return InvalidArguments("tool arguments are not valid UTF-8")
	}
	return InvalidArguments("tool arguments are refused: %v", err)
}

// decodeArguments is checkArguments followed by parseValidObject.
func decodeArguments(raw json.RawMessage) (map[string]any, json.RawMessage, error) {
	raw, err := checkArguments(raw)
	if err != nil {
		return nil, nil, err
	}
	return parseValidObject(raw), raw, nil
}

// jsonKind names a JSON type for a message.
func jsonKind(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Array:
		return "an array"
	case jsonscan.String:
		return "a string"
	case jsonscan.Bool:
		return "a boolean"
	case jsonscan.Number:
		return "a number"
	}
	return k.String()
}

// parseValidObject decodes a JSON object text that checkArguments accepted,
// numbers as json.Number, exactly as encoding/json with UseNumber would:
// map[string]any, []any, string, json.Number, bool and nil; the last of
// duplicate keys wins; invalid UTF-8 becomes U+FFFD. It is several times
// cheaper than encoding/json's decoder for the small objects tool
// arguments are. FuzzDecodeArgumentsMatchesEncodingJSON checks the
// equivalence. Text that is not a JSON object gives nil.
func parseValidObject(raw []byte) map[string]any {
	s := jsonscan.New(raw, jsonscan.Limits{})
	m, _ := decodeValue(&s).(map[string]any)
	return m
}

func decodeValue(s *jsonscan.Scanner) any {
	switch s.Peek() {
	case jsonscan.Object:
		m := map[string]any{}
		s.BeginObject()
		for {
			key, plain, ok := s.NextKey()
			if !ok {
				return m
			}
			m[decodeString(key, plain)] = decodeValue(s)
		}
	case jsonscan.Array:
		a := []any{}
		s.BeginArray()
		for s.NextElement() {
			a = append(a, decodeValue(s))
		}
		return a
	case jsonscan.String:
		return decodeString(s.String())
	case jsonscan.Number:
		return json.Number(s.Number())
	case jsonscan.Bool:
		return s.Bool()
	}
	s.Skip() // null, or nothing on text the scanner refused
	return nil
}

func decodeString(raw []byte, plain bool) string {
	if plain {
		return string(raw)
	}
	return string(jsonscan.AppendUnquote(make([]byte, 0, len(raw)), raw))
}

// ArgumentsForHistory returns the form of a call's arguments that history,
// events and exported state keep. Text that is one JSON value within the
// argument limits (MaxArgumentBytes, MaxArgumentDepth, MaxNumberLength,
// valid UTF-8) is kept as it is, and so is empty text; anything else is
// kept as a JSON string holding the text (invalid UTF-8 replaced by
// U+FFFD, cut after MaxRefusedArgumentsText bytes), so that every reader
// of history, Python's included, can decode it. Such a call is refused as
// invalid_arguments when it runs, so the model learns why from its
// return. kept is false when the text was replaced; the common case
// allocates nothing.
func ArgumentsForHistory(raw json.RawMessage) (safe json.RawMessage, kept bool) {
	if len(raw) == 0 || (len(raw) <= MaxArgumentBytes && jsonscan.Check(raw, argumentLimits()) == nil) {
		return raw, true
	}
	text := raw
	if len(text) > MaxRefusedArgumentsText {
		text = text[:MaxRefusedArgumentsText]
	}
	// encoding/json writes invalid UTF-8 as U+FFFD.
	b, err := json.Marshal(string(text))
	if err != nil { // unreachable: any Go string marshals
		return json.RawMessage(`""`), false
	}
	return b, false
}
