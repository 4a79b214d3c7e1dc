package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/internal/jsonscan"
)

func TestCheck(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	limited := jsonscan.Limits{MaxDepth: 4, MaxNumberLength: 5, RequireUTF8: true}
	for _, tc := range []struct {
		name   string
		text   string
		limits jsonscan.Limits
		want   error // nil, or the sentinel Check must wrap
		at     int   // offset of the problem, when want is set
	}{
		{"object", ` {"a": [1, -2e+3, true, false, null, "x", {}]} `, limited, nil, 0},
		{"scalar", `"x"`, limited, nil, 0},
		{"numbers", `[0, -0, 1.5, 1e5, 1E-5, 0.0e0, -1234]`, limited, nil, 0},
		{"escapes", `"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 \ud800"`, limited, nil, 0},
		{"utf-8", `"héllo ✓ 😀"`, limited, nil, 0},

		{"empty", ``, limited, jsonscan.ErrSyntax, 0},
		{"only space", " \n\t", limited, jsonscan.ErrSyntax, 3},
		{"two values", `{} {}`, limited, jsonscan.ErrSyntax, 3},
		{"trailing comma in array", `[1,]`, limited, jsonscan.ErrSyntax, 3},
		{"trailing comma in object", `{"a":1,}`, limited, jsonscan.ErrSyntax, 7},
		{"leading comma", `[,1]`, limited, jsonscan.ErrSyntax, 1},
		{"missing comma", `[1 2]`, limited, jsonscan.ErrSyntax, 3},
		{"missing colon", `{"a" 1}`, limited, jsonscan.ErrSyntax, 5},
		{"unquoted key", `{a:1}`, limited, jsonscan.ErrSyntax, 1},
		{"mismatched bracket", `[1}`, limited, jsonscan.ErrSyntax, 2},
		{"mismatched brace", `{"a":1]`, limited, jsonscan.ErrSyntax, 6},
		{"leading zero", `[01]`, limited, jsonscan.ErrSyntax, 2},
		{"plus sign", `+1`, limited, jsonscan.ErrSyntax, 0},
		{"bare minus", `-`, limited, jsonscan.ErrSyntax, 1},
		{"empty fraction", `1.`, limited, jsonscan.ErrSyntax, 2},
		{"empty exponent", `1e+`, limited, jsonscan.ErrSyntax, 3},
		{"hex", `0x1`, limited, jsonscan.ErrSyntax, 1},
		{"bad literal", `tru`, limited, jsonscan.ErrSyntax, 0},
		{"literal prefix", `nullx`, limited, jsonscan.ErrSyntax, 4},
		{"capital literal", `True`, limited, jsonscan.ErrSyntax, 0},
		{"single quotes", `'a'`, limited, jsonscan.ErrSyntax, 0},
		{"bad escape", `"\x"`, limited, jsonscan.ErrSyntax, 1},
		{"short unicode escape", `"\u12"`, limited, jsonscan.ErrSyntax, 1},
		{"non-hex unicode escape", `"\u12g4"`, limited, jsonscan.ErrSyntax, 1},
		{"raw control character", "\"a\tb\"", limited, jsonscan.ErrSyntax, 2},
		{"non-ASCII outside a string", "[\xc3\xa9]", limited, jsonscan.ErrSyntax, 1},

		{"truncated object", `{"a":1`, limited, jsonscan.ErrSyntax, 6},
		{"truncated key", `{"a`, limited, jsonscan.ErrSyntax, 3},
		{"truncated after colon", `{"a":`, limited, jsonscan.ErrSyntax, 5},
		{"truncated array", `[1,`, limited, jsonscan.ErrSyntax, 3},
		{"truncated string", `"abc`, limited, jsonscan.ErrSyntax, 4},
		{"truncated escape", `"\`, limited, jsonscan.ErrSyntax, 1},
		{"truncated unicode escape", `"\u00`, limited, jsonscan.ErrSyntax, 1},
		{"truncated literal", `fals`, limited, jsonscan.ErrSyntax, 0},

		{"at the depth limit", deep(4), limited, nil, 0},
		{"beyond the depth limit", deep(5), limited, jsonscan.ErrTooDeep, 4},
		{"depth counts objects", `{"a":{"b":[{"c":[]}]}}`, limited, jsonscan.ErrTooDeep, 16},
		{"depth is not width", `[[],[],[[[]]],[]]`, limited, nil, 0},
		{"brackets in strings do not nest", `["[[[[[[{{{{"]`, limited, nil, 0},
		{"default depth", deep(jsonscan.DefaultMaxDepth), jsonscan.Limits{}, nil, 0},
		{"beyond the default depth", deep(jsonscan.DefaultMaxDepth + 1), jsonscan.Limits{}, jsonscan.ErrTooDeep, jsonscan.DefaultMaxDepth},

		{"number at the length limit", `[-1.25]`, limited, nil, 0},
		{"number beyond the length limit", `[1,-1.255]`, limited, jsonscan.ErrNumberTooLong, 3},
		{"huge integer without a limit", strings.Repeat("9", 100000), jsonscan.Limits{}, nil, 0},
		{"huge exponent", `1e99999999999`, jsonscan.Limits{}, nil, 0},
		{"huge integer", strings.Repeat("9", 4001), jsonscan.Limits{MaxNumberLength: 4000}, jsonscan.ErrNumberTooLong, 0},

		{"invalid UTF-8", "[\"ok\",\"\xff\xfe\"]", limited, jsonscan.ErrInvalidUTF8, 7},
		{"truncated UTF-8", "\"\xc3\"", limited, jsonscan.ErrInvalidUTF8, 1},
		{"UTF-8 surrogate", "\"\xed\xa0\x80\"", limited, jsonscan.ErrInvalidUTF8, 1},
		{"invalid UTF-8 in a key", "{\"\xff\":1}", limited, jsonscan.ErrInvalidUTF8, 2},
		{"invalid UTF-8 allowed", "\"\xff\xfe\"", jsonscan.Limits{}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := jsonscan.Check([]byte(tc.text), tc.limits)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check(%.40q) = %v", tc.text, err)
				}
				return
			}
			var e *jsonscan.Error
			if !errors.As(err, &e) || !errors.Is(err, tc.want) {
				t.Fatalf("Check(%.40q) = %v, want %v", tc.text, err, tc.want)
			}
			if e.Offset != tc.at {
				t.Fatalf("Check(%.40q) = %v, want offset %d", tc.text, err, tc.at)
			}
		})
	}
}

func TestScannerReadsTokens(t *testing.T) {
	s := jsonscan.New([]byte(` {"k\u00e9y": ["v", 12.5e1, true, null, {}], "plain": false} `), jsonscan.Limits{})
	if k := s.Peek(); k != jsonscan.Object || !s.BeginObject() {
		t.Fatalf("Peek = %v", k)
	}
	key, plain, ok := s.NextKey()
	if !ok || plain || string(jsonscan.AppendUnquote(nil, key)) != "kéy" {
		t.Fatalf("NextKey = %q %v %v", key, plain, ok)
	}
	if !s.BeginArray() || !s.NextElement() {
		t.Fatal("array")
	}
	if v, plain := s.String(); string(v) != "v" || !plain {
		t.Fatalf("String = %q %v", v, plain)
	}
	if !s.NextElement() || string(s.Number()) != "12.5e1" {
		t.Fatal("Number")
	}
	if !s.NextElement() || !s.Bool() {
		t.Fatal("Bool")
	}
	if !s.NextElement() || !s.Null() {
		t.Fatal("Null")
	}
	if !s.NextElement() || s.Peek() != jsonscan.Object {
		t.Fatal("nested object")
	}
	s.Skip()
	if s.NextElement() {
		t.Fatal("array does not end")
	}
	// A copy reads the same value again.
	saved := s
	key, plain, ok = s.NextKey()
	if !ok || !plain || string(key) != "plain" || s.Bool() {
		t.Fatalf("NextKey = %q %v %v", key, plain, ok)
	}
	if key2, _, _ := saved.NextKey(); string(key2) != "plain" || saved.Bool() {
		t.Fatal("copy is not an independent cursor")
	}
	if _, _, ok := s.NextKey(); ok {
		t.Fatal("object does not end")
	}
	if !s.End() || s.Err() != nil {
		t.Fatal(s.Err())
	}
}

// Reading the wrong kind records an error; every later read consumes
// nothing, so a loop over NextKey or NextElement ends.
func TestScannerStopsAtTheFirstProblem(t *testing.T) {
	for _, read := range []func(*jsonscan.Scanner){
		func(s *jsonscan.Scanner) { s.String() },
		func(s *jsonscan.Scanner) { s.Number() },
		func(s *jsonscan.Scanner) { s.Bool() },
		func(s *jsonscan.Scanner) { s.Null() },
		func(s *jsonscan.Scanner) { s.BeginArray() },
		func(s *jsonscan.Scanner) { s.NextKey() },
	} {
		s := jsonscan.New([]byte(`{"a":[1,2]}`), jsonscan.Limits{})
		read(&s)
		if s.Err() == nil {
			t.Fatal("no error for a read of the wrong kind")
		}
		at := s.Offset()
		s.Skip()
		if s.NextElement() || s.BeginObject() || s.Peek() != jsonscan.Invalid || s.End() || s.Offset() != at {
			t.Fatal("a read after an error consumed text")
		}
	}
	var zero jsonscan.Scanner
	if !zero.AtEnd() || zero.Peek() != jsonscan.Invalid || !errors.Is(zero.Err(), jsonscan.ErrSyntax) {
		t.Fatal("zero Scanner")
	}
}

func TestAppendUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, text := range []string{
		`""`, `"plain"`, `"\"\\\/\b\f\n\r\t"`, `"\u0000\u001f\u00e9\u20ac"`, `"\uD83D\uDE00"`, `"\ud83d\ude00x"`,
		`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"\udc00\ud800"`, `"\ud800\n"`,
		`"\ud8000udC00"`, // a high half followed by text that only looks like an escape
		"\"\xff\xfe\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"\xf4\x90\x80\x80\"", `"é✓😀"`,
	} {
		s := jsonscan.New([]byte(text), jsonscan.Limits{})
		raw, plain := s.String()
		if !s.End() {
			t.Fatalf("%q: %v", text, s.Err())
		}
		var want string
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		got := jsonscan.AppendUnquote(nil, raw)
		if string(got) != want {
			t.Errorf("AppendUnquote(%q) = %q, want %q", raw, got, want)
		}
		if plain && string(raw) != want {
			t.Errorf("%q is plain but its raw content is not its value", text)
		}
	}
}

func TestCheckDoesNotAllocate(t *testing.T) {
	text := []byte(`{"query":"starweaver","limit":10,"tags":["a","b\n"],"nested":{"x":[1.5,true,null]}}`)
	lim := jsonscan.Limits{MaxDepth: 128, MaxNumberLength: 4000, RequireUTF8: true}
	if n := testing.AllocsPerRun(100, func() {
		if err := jsonscan.Check(text, lim); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Check allocates %v times", n)
	}
}

// refDepth is the deepest nesting of a text json.Valid accepted, counted
// by encoding/json's tokenizer.
func refDepth(t *testing.T, text []byte) (depth, maxNumber int) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	cur := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return depth, maxNumber
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				cur++
				depth = max(depth, cur)
			} else {
				cur--
			}
		case json.Number:
			maxNumber = max(maxNumber, len(tok))
		}
	}
}

// FuzzScan checks Check against encoding/json: with zero Limits it accepts
// exactly what json.Valid accepts; with limits it also refuses exactly the
// texts that nest too deeply, hold too long a number or a string that is
// not UTF-8. Any input, valid or not, must not panic; AppendUnquote of each
// string must agree with json.Unmarshal.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+10`, `"x"`, `{"a":[1,{"b":null}],"c":"\u00e9"}`,
		`[[[[[]]]]]`, `[[[[[[]]]]]]`, `{"a":{"b":{"c":{"d":{}}}}}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `[01]`, `1.`, `-`,
		`"\ud800"`, `"\uD83D\uDE00"`, "\"\xff\"", "\"\t\"", `123456789`, `1e999`, `tru`, `nul`, `"\u12"`, `[1}`, `{"a":1]`,
	} {
		f.Add([]byte(seed))
	}
	const maxDepth, maxNumber = 4, 8
	f.Fuzz(func(t *testing.T, text []byte) {
		want := json.Valid(text)
		if err := jsonscan.Check(text, jsonscan.Limits{}); (err == nil) != want {
			t.Fatalf("Check(%q) = %v, json.Valid = %v", text, err, want)
		}
		err := jsonscan.Check(text, jsonscan.Limits{MaxDepth: maxDepth, MaxNumberLength: maxNumber, RequireUTF8: true})
		if want {
			depth, number := refDepth(t, text)
			want = depth <= maxDepth && number <= maxNumber && utf8.Valid(text)
		}
		if (err == nil) != want {
			t.Fatalf("Check(%q) with limits = %v, want ok=%v", text, err, want)
		}
		if err != nil {
			return
		}
		// The text is valid: every string decodes as encoding/json decodes it.
		var walk func(s *jsonscan.Scanner)
		walk = func(s *jsonscan.Scanner) {
			switch s.Peek() {
			case jsonscan.String:
				start := s.Offset()
				raw, plain := s.String()
				var want string
				if err := json.Unmarshal(text[start:s.Offset()], &want); err != nil {
					t.Fatal(err)
				}
				if got := jsonscan.AppendUnquote(nil, raw); string(got) != want || (plain && string(raw) != want) {
					t.Fatalf("string %q decodes as %q, want %q", raw, got, want)
				}
			case jsonscan.Array:
				s.BeginArray()
				for s.NextElement() {
					walk(s)
				}
			case jsonscan.Object:
				s.BeginObject()
				for {
					if _, _, ok := s.NextKey(); !ok {
						break
					}
					walk(s)
				}
			default:
				s.Skip()
			}
		}
		s := jsonscan.New(text, jsonscan.Limits{})
		walk(&s)
		if !s.End() {
			t.Fatalf("walk of valid %q: %v", text, s.Err())
		}
	})
}
