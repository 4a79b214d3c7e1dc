package effect_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

var canonicalSeeds = []string{
	`{"a":1,"b":[true,false,null],"c":{"d":"x","e":-0.5e+10}}`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{ "a":1}`, `[1, 2]`, `"\u00e9"`, `"é"`, `"a\"b"`, `"<&>"`,
	`01`, `-`, `1.`, `1e`, `-0`, `1E+2`, `{}`, `[]`, `[[[[]]]]`, `{"":1,"a":{}}`, `tru`, `nul`, `"\x7f"`,
	`{"a":1}x`, `1 2`, ``, `{"a"}`, `[1,]`, `{"a":1,}`, `"abc`, "\"\t\"",
}

// The fast path answers yes only for text the full path leaves as it is.
func FuzzCanonicalFastPath(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !effect.IsCanonical(b) {
			return
		}
		full, err := effect.Canonicalize(b)
		if err != nil || string(full) != string(b) {
			t.Fatalf("fast path accepted %q; full path gives %q, %v", b, full, err)
		}
	})
}

func TestCanonicalFastPathAcceptsTheUsualArguments(t *testing.T) {
	for _, s := range []string{
		`{"path":"a.txt"}`,
		`{"limit":10,"query":"starweaver","tags":["a","b"]}`,
		`{"n":-1.5e3,"ok":true,"v":null}`,
		`[]`, `"x"`, `0`,
	} {
		if !effect.IsCanonical([]byte(s)) {
			t.Errorf("%s takes the full path", s)
		}
	}
}

// BenchmarkCanonical compares the fast path with the full one on usual
// tool arguments.
func BenchmarkCanonical(b *testing.B) {
	in := []byte(`{"limit":10,"query":"starweaver","tags":["a","b"]}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := effect.Canonical(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := effect.Canonicalize(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
