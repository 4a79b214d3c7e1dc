package tool

import "unicode/utf8"

// Limits on the arguments of one call. Arguments beyond them are refused as
// invalid_arguments before any tool code, hook or validator sees them, so a
// model (or an attacker steering one) cannot hand a tool's host a value it
// cannot decode: Python's JSON reader recurses once per nesting level and
// refuses integers of more than 4 300 digits.
const (
	// MaxArgumentBytes bounds the size of a call's arguments text.
	MaxArgumentBytes = 16 << 20
	// MaxArgumentDepth bounds how deeply arrays and objects nest.
	MaxArgumentDepth = 128
	// MaxNumberLength bounds the length of one number literal.
	MaxNumberLength = 4000
)

// checkLimits refuses arguments text (already valid JSON) that exceeds the
// limits above or is not valid UTF-8. It is one pass over the bytes.
func checkLimits(raw []byte) error {
	if len(raw) > MaxArgumentBytes {
		return InvalidArguments("tool arguments are %d bytes; the limit is %d", len(raw), MaxArgumentBytes)
	}
	depth, number, inString, escaped, ascii := 0, 0, false, false, true
	for _, c := range raw {
		if c >= utf8.RuneSelf {
			ascii = false
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > MaxArgumentDepth {
				return InvalidArguments("tool arguments nest deeper than %d levels", MaxArgumentDepth)
			}
		case '}', ']':
			depth--
		}
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9') {
			if number++; number > MaxNumberLength {
				return InvalidArguments("tool arguments hold a number longer than %d characters", MaxNumberLength)
			}
		} else {
			number = 0
		}
	}
	if !ascii && !utf8.Valid(raw) {
		return InvalidArguments("tool arguments are not valid UTF-8")
	}
	return nil
}
