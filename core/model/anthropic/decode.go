package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The response body is decoded by hand: encoding/json spent about 13 µs
// per response on reflection, a quarter of the provider's budget. The body
// is first checked with json.Valid, so the decoder below only walks valid
// JSON: it reads the fields of wireResponse (keys matched exactly, as the
// API sends them), skips every other value, and fails on a field of the
// wrong type. FuzzDecodeResponse checks it against encoding/json.

var errDecode = errors.New("unexpected JSON type")

// decodeResponse decodes a Messages API response into r.
func decodeResponse(data []byte, r *wireResponse) error {
	if !json.Valid(data) {
		return errors.New("invalid JSON")
	}
	d := decoder{data: data}
	return d.response(r)
}

// response decodes a Messages API message object into r.
func (d *decoder) response(r *wireResponse) error {
	var key string
	open, err := d.enter('{')
	for err == nil && open && d.next(&key) {
		switch key {
		case "id":
			err = d.str(&r.ID)
		case "model":
			err = d.str(&r.Model)
		case "stop_reason":
			err = d.str(&r.StopReason)
		case "stop_details":
			err = d.stopDetails(r)
		case "usage":
			err = d.usage(&r.Usage)
		case "content":
			err = d.content(&r.Content)
		default:
			d.skip()
		}
	}
	return err
}

type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

// null consumes a null literal, reporting whether there was one.
func (d *decoder) null() bool {
	d.ws()
	if d.data[d.pos] == 'n' {
		d.pos += 4
		return true
	}
	return false
}

// enter consumes the opening delimiter of an object or an array; it
// reports false for null, and an error for any other value.
func (d *decoder) enter(delim byte) (bool, error) {
	if d.null() {
		return false, nil
	}
	if d.data[d.pos] != delim {
		return false, errDecode
	}
	d.pos++
	return true, nil
}

// next moves to the next key of an entered object and stores it in key,
// leaving the position on its value; it reports false at the end of the
// object, which it consumes.
func (d *decoder) next(key *string) bool {
	d.ws()
	if d.data[d.pos] == ',' {
		d.pos++
		d.ws()
	}
	if d.data[d.pos] == '}' {
		d.pos++
		return false
	}
	*key, _ = d.stringValue() // valid JSON: keys are strings
	d.ws()
	d.pos++ // ':'
	return true
}

// more reports whether an entered array has another element, consuming
// the comma before it or the closing bracket.
func (d *decoder) more() bool {
	d.ws()
	if d.data[d.pos] == ',' {
		d.pos++
		d.ws()
	}
	if d.data[d.pos] == ']' {
		d.pos++
		return false
	}
	return true
}

// str decodes a string (null leaves dst unchanged).
func (d *decoder) str(dst *string) error {
	if d.null() {
		return nil
	}
	s, err := d.stringValue()
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

func (d *decoder) integer(dst *int) error {
	if d.null() {
		return nil
	}
	start := d.pos
	d.skip()
	n, err := strconv.Atoi(string(d.data[start:d.pos]))
	if err != nil {
		return errDecode
	}
	*dst = n
	return nil
}

func (d *decoder) stopDetails(r *wireResponse) error {
	var key string
	open, err := d.enter('{')
	for err == nil && open && d.next(&key) {
		if key == "explanation" {
			err = d.str(&r.StopDetails.Explanation)
		} else {
			d.skip()
		}
	}
	return err
}

func (d *decoder) usage(u *wireUsage) error {
	var key string
	open, err := d.enter('{')
	for err == nil && open && d.next(&key) {
		switch key {
		case "input_tokens":
			err = d.integer(&u.InputTokens)
		case "output_tokens":
			err = d.integer(&u.OutputTokens)
		case "cache_creation_input_tokens":
			err = d.integer(&u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			err = d.integer(&u.CacheReadInputTokens)
		case "output_tokens_details":
			var open2 bool
			open2, err = d.enter('{')
			for err == nil && open2 && d.next(&key) {
				if key == "thinking_tokens" {
					err = d.integer(&u.OutputTokensDetails.ThinkingTokens)
				} else {
					d.skip()
				}
			}
		default:
			d.skip()
		}
	}
	return err
}

func (d *decoder) content(dst *[]wireContent) error {
	open, err := d.enter('[')
	if err != nil || !open {
		*dst = nil
		return err
	}
	out := make([]wireContent, 0, 4)
	for d.more() {
		var c wireContent
		if err := d.block(&c); err != nil {
			return err
		}
		out = append(out, c)
	}
	*dst = out
	return nil
}

func (d *decoder) block(c *wireContent) error {
	var key string
	open, err := d.enter('{')
	for err == nil && open && d.next(&key) {
		switch key {
		case "type":
			err = d.str(&c.Type)
		case "text":
			err = d.str(&c.Text)
		case "id":
			err = d.str(&c.ID)
		case "name":
			err = d.str(&c.Name)
		case "thinking":
			err = d.str(&c.Thinking)
		case "signature":
			err = d.str(&c.Signature)
		case "data":
			err = d.str(&c.Data)
		case "input":
			d.ws()
			start := d.pos
			d.skip()
			c.Input = json.RawMessage(d.data[start:d.pos])
		default:
			d.skip()
		}
	}
	return err
}

// skip consumes one value.
func (d *decoder) skip() {
	d.ws()
	switch d.data[d.pos] {
	case '"':
		d.pos++
		for d.data[d.pos] != '"' {
			if d.data[d.pos] == '\\' {
				d.pos++
			}
			d.pos++
		}
		d.pos++
	case '{', '[':
		depth := 0
		for {
			switch d.data[d.pos] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case '"':
				d.skip()
				continue
			}
			d.pos++
			if depth == 0 {
				return
			}
		}
	default: // a number or a literal
		for d.pos < len(d.data) {
			switch d.data[d.pos] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			d.pos++
		}
	}
}

// stringValue decodes a string at d.pos, as encoding/json does (invalid
// UTF-8 and lone surrogates become U+FFFD).
func (d *decoder) stringValue() (string, error) {
	d.ws()
	if d.data[d.pos] != '"' {
		return "", errDecode
	}
	d.pos++
	start := d.pos
	for i := start; ; i++ {
		c := d.data[i]
		if c == '"' {
			d.pos = i + 1
			return string(d.data[start:i]), nil
		}
		if c == '\\' || c >= utf8.RuneSelf {
			break
		}
	}
	// The slow path: escapes or non-ASCII bytes.
	buf := make([]byte, 0, 64)
	i := start
	for {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return string(buf), nil
		case c == '\\':
			i++
			switch e := d.data[i]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r := hex4(d.data[i+1 : i+5])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 < len(d.data) && d.data[i+1] == '\\' && d.data[i+2] == 'u' {
						r2 = hex4(d.data[i+3 : i+7])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", fmt.Errorf("bad escape %q", e)
			}
			i++
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, d.data[i:i+size]...)
			}
			i += size
		}
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
