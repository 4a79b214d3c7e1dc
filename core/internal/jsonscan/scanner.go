package jsonscan

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Problems a Scanner records; [Error] wraps one of them with its offset.
var (
	ErrSyntax        = errors.New("jsonscan: invalid JSON")
	ErrTooDeep       = errors.New("jsonscan: arrays and objects nest too deeply")
	ErrNumberTooLong = errors.New("jsonscan: number too long")
	ErrInvalidUTF8   = errors.New("jsonscan: string is not valid UTF-8")
)

// Error is the first problem a Scanner met and where.
type Error struct {
	// Offset is the byte offset in the text where the problem was found.
	Offset int
	// Err is ErrSyntax, ErrTooDeep, ErrNumberTooLong or ErrInvalidUTF8.
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("%v at offset %d", e.Err, e.Offset) }

func (e *Error) Unwrap() error { return e.Err }

// DefaultMaxDepth is the nesting depth allowed when Limits.MaxDepth is
// zero: encoding/json's, so that zero Limits accept what json.Valid does.
const DefaultMaxDepth = 10000

// Limits are checked while scanning, on top of the JSON grammar. The zero
// value allows DefaultMaxDepth levels, numbers of any length and any bytes
// in strings, as encoding/json does.
type Limits struct {
	// MaxDepth bounds how deeply arrays and objects nest: [] is depth 1.
	// Zero means DefaultMaxDepth.
	MaxDepth int
	// MaxNumberLength bounds the length in bytes of one number; zero means
	// no bound.
	MaxNumberLength int
	// RequireUTF8 refuses strings that are not valid UTF-8 (encoding/json
	// accepts them and decodes the bad bytes as U+FFFD).
	RequireUTF8 bool
}

// Kind is the type of the value that begins at a Scanner's position.
type Kind uint8

// The kinds [Scanner.Peek] reports.
const (
	Invalid Kind = iota // no value can begin here
	Object
	Array
	String
	Number
	Bool
	Null
)

func (k Kind) String() string {
	switch k {
	case Object:
		return "object"
	case Array:
		return "array"
	case String:
		return "string"
	case Number:
		return "number"
	case Bool:
		return "boolean"
	case Null:
		return "null"
	}
	return "invalid"
}

// Scanner is a cursor over one JSON text. The caller drives it in the
// text's shape: Peek says what comes next, then String, Number, Bool, Null,
// BeginObject with NextKey, BeginArray with NextElement, or Skip consume it.
//
// Every method validates what it consumes and bounds-checks every read.
// The first problem is recorded and returned by Err; after it every method
// consumes nothing and returns zero values, so loops over NextKey and
// NextElement end. Callers may therefore read on and check Err (or End)
// once at the end.
//
// A Scanner holds no pointers into itself: a copy is an independent cursor
// at the same position, which is how a caller reads a value twice. The zero
// Scanner is at the end of an empty text.
type Scanner struct {
	b      []byte
	i      int
	depth  int
	limits Limits
	// first is set by BeginObject and BeginArray until the first NextKey or
	// NextElement: only then may the container close without a comma. It
	// needs no stack, because a container is only ever entered as the
	// member of one whose first member has been read.
	first bool
	// fail is the first problem (nil if none) and failAt its offset; the
	// *Error is built only when asked for, so scanning never allocates.
	fail   error
	failAt int
}

// New returns a Scanner at the start of text.
func New(text []byte, limits Limits) Scanner {
	if limits.MaxDepth <= 0 {
		limits.MaxDepth = DefaultMaxDepth
	}
	return Scanner{b: text, limits: limits}
}

// Check reports whether text is exactly one JSON value, optionally
// surrounded by whitespace, within limits. The error is an *Error.
func Check(text []byte, limits Limits) error {
	s := New(text, limits)
	s.Skip()
	s.End()
	return s.Err()
}

// Err returns the first problem met, an *Error, or nil.
func (s *Scanner) Err() error {
	if s.fail == nil {
		return nil
	}
	return &Error{Offset: s.failAt, Err: s.fail}
}

// Offset is the position of the cursor in the text.
func (s *Scanner) Offset() int { return s.i }

func (s *Scanner) setErr(err error, at int) {
	if s.fail == nil {
		s.fail, s.failAt = err, at
	}
}

func (s *Scanner) space() {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c > ' ':
			return // tested first: compact text has no space between tokens
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			s.i++
		default:
			return
		}
	}
}

// AtEnd skips whitespace and reports whether nothing else is left. It
// never records a problem.
func (s *Scanner) AtEnd() bool {
	s.space()
	return s.i >= len(s.b)
}

// End skips trailing whitespace, records a syntax error if anything else is
// left, and reports whether the whole scan met no problem.
func (s *Scanner) End() bool {
	if s.fail == nil && !s.AtEnd() {
		s.setErr(ErrSyntax, s.i)
	}
	return s.fail == nil
}

// Peek skips whitespace and reports the kind of the value that begins
// there, judging by its first byte; the value is validated when it is
// consumed. Peek is only meaningful where a value must begin: if none can,
// it records a syntax error and reports Invalid.
func (s *Scanner) Peek() Kind {
	if s.fail != nil {
		return Invalid
	}
	s.space()
	if s.i >= len(s.b) {
		s.setErr(ErrSyntax, s.i)
		return Invalid
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == '-' || (c >= '0' && c <= '9'):
		return Number
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	}
	s.setErr(ErrSyntax, s.i)
	return Invalid
}

// Skip consumes one value of any kind, validating all of it.
func (s *Scanner) Skip() {
	switch s.Peek() {
	case Object:
		if s.BeginObject() {
			for {
				if _, _, ok := s.NextKey(); !ok {
					break
				}
				s.Skip()
			}
		}
	case Array:
		if s.BeginArray() {
			for s.NextElement() {
				s.Skip()
			}
		}
	case String:
		s.String()
	case Number:
		s.Number()
	case Bool:
		s.Bool()
	case Null:
		s.Null()
	}
}

// begin consumes the opening bracket of a container.
func (s *Scanner) begin(open byte) bool {
	if s.fail != nil {
		return false
	}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != open {
		s.setErr(ErrSyntax, s.i)
		return false
	}
	if s.depth >= s.limits.MaxDepth {
		s.setErr(ErrTooDeep, s.i)
		return false
	}
	s.i++
	s.depth++
	s.first = true
	return true
}

// next consumes what separates two members of a container, or what closes
// it, reporting whether a member follows.
func (s *Scanner) next(close byte) bool {
	if s.fail != nil {
		return false
	}
	first := s.first
	s.first = false
	s.space()
	if s.i >= len(s.b) {
		s.setErr(ErrSyntax, s.i)
		return false
	}
	switch s.b[s.i] {
	case close:
		s.i++
		s.depth--
		return false
	case ',':
		if !first {
			s.i++
			return true
		}
	default:
		if first {
			return true
		}
	}
	s.setErr(ErrSyntax, s.i)
	return false
}

// BeginObject consumes the { of an object; members are then read with
// NextKey. It reports false if no object begins here or it would nest
// deeper than the limit.
func (s *Scanner) BeginObject() bool { return s.begin('{') }

// NextKey reads the next member's key and the colon after it, or the } that
// closes the object, in which case ok is false. key and plain are as
// String returns them; the caller then consumes the member's value.
func (s *Scanner) NextKey() (key []byte, plain, ok bool) {
	if !s.next('}') {
		return nil, false, false
	}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		s.setErr(ErrSyntax, s.i)
		return nil, false, false
	}
	key, plain = s.String()
	s.space()
	if s.fail != nil || s.i >= len(s.b) || s.b[s.i] != ':' {
		s.setErr(ErrSyntax, s.i)
		return nil, false, false
	}
	s.i++
	return key, plain, true
}

// BeginArray consumes the [ of an array; elements are then announced by
// NextElement. It reports false if no array begins here or it would nest
// deeper than the limit.
func (s *Scanner) BeginArray() bool { return s.begin('[') }

// NextElement reports whether another element follows, consuming the comma
// before it, or the ] that closes the array. The caller then consumes the
// element.
func (s *Scanner) NextElement() bool { return s.next(']') }

// String consumes a string and returns its raw content, the bytes between
// the quotes, which aliases the text. plain reports that the content has no
// escapes and is valid UTF-8, so that it is the string's value as it
// stands; otherwise AppendUnquote decodes it.
func (s *Scanner) String() (raw []byte, plain bool) {
	if s.fail != nil {
		return nil, false
	}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		s.setErr(ErrSyntax, s.i)
		return nil, false
	}
	start := s.i + 1
	escaped, ascii := false, true
	for i := start; i < len(s.b); {
		c := s.b[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++ // the common byte, tested first: strings are mostly ASCII text
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			raw = s.b[start:i]
			valid := ascii || utf8.Valid(raw)
			if !valid && s.limits.RequireUTF8 {
				s.setErr(ErrInvalidUTF8, start)
				return nil, false
			}
			return raw, !escaped && valid
		case c == '\\':
			n := escapeLen(s.b[i:])
			if n == 0 {
				s.setErr(ErrSyntax, i)
				return nil, false
			}
			escaped = true
			i += n
		case c < 0x20:
			s.setErr(ErrSyntax, i) // control characters must be escaped
			return nil, false
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			i++
		}
	}
	s.setErr(ErrSyntax, len(s.b)) // unterminated
	return nil, false
}

// escapeLen returns the length of the escape sequence at the start of b,
// or 0 if it is not a valid one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if hexVal(c) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// Number consumes a number and returns its text, which aliases the text
// scanned: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *Scanner) Number() []byte {
	if s.fail != nil {
		return nil
	}
	s.space()
	start, i := s.i, s.i
	if i < len(s.b) && s.b[i] == '-' {
		i++
	}
	switch {
	case i < len(s.b) && s.b[i] == '0':
		i++
	case i < len(s.b) && s.b[i] >= '1' && s.b[i] <= '9':
		i = s.digits(i)
	default:
		s.setErr(ErrSyntax, i)
		return nil
	}
	if i < len(s.b) && s.b[i] == '.' {
		i++
		if j := s.digits(i); j > i {
			i = j
		} else {
			s.setErr(ErrSyntax, i)
			return nil
		}
	}
	if i < len(s.b) && (s.b[i] == 'e' || s.b[i] == 'E') {
		i++
		if i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-') {
			i++
		}
		if j := s.digits(i); j > i {
			i = j
		} else {
			s.setErr(ErrSyntax, i)
			return nil
		}
	}
	if s.limits.MaxNumberLength > 0 && i-start > s.limits.MaxNumberLength {
		s.setErr(ErrNumberTooLong, start)
		return nil
	}
	s.i = i
	return s.b[start:i]
}

func (s *Scanner) digits(i int) int {
	for i < len(s.b) && s.b[i] >= '0' && s.b[i] <= '9' {
		i++
	}
	return i
}

// Bool consumes true or false and returns it.
func (s *Scanner) Bool() bool {
	if s.fail != nil {
		return false
	}
	s.space()
	switch {
	case s.literal("true"):
		return true
	case s.literal("false"):
		return false
	}
	s.setErr(ErrSyntax, s.i)
	return false
}

// Null consumes null, reporting false (with a syntax error) if something
// else is there.
func (s *Scanner) Null() bool {
	if s.fail != nil {
		return false
	}
	s.space()
	if s.literal("null") {
		return true
	}
	s.setErr(ErrSyntax, s.i)
	return false
}

// literal consumes word if the text continues with it.
func (s *Scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
