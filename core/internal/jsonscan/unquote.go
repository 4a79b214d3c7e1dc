package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnquote appends the value of a string whose raw content (as
// [Scanner.String] returns it) is raw, decoded exactly as encoding/json
// decodes it: escapes are resolved, a \u escape that is half a surrogate
// pair and every byte that is not valid UTF-8 become U+FFFD. On content the
// Scanner did not accept it stops at the first malformed escape.
func AppendUnquote(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			n := escapeLen(raw[i:])
			if n == 0 {
				return dst
			}
			if n == 2 {
				dst = append(dst, unescape(raw[i+1]))
				i += 2
				continue
			}
			r := u4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				// Only a high half followed by a low half makes a pair.
				if i < len(raw) && raw[i] == '\\' && escapeLen(raw[i:]) == 6 {
					if pair := utf16.DecodeRune(r, u4(raw[i+2:])); pair != utf8.RuneError {
						dst = utf8.AppendRune(dst, pair)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, raw[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// unescape returns the byte a two-byte escape \c stands for.
func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // " \ /
}

// u4 reads the four hex digits escapeLen has checked.
func u4(b []byte) rune {
	return rune(hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3]))
}
