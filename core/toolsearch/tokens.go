package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens splits s into lowercase words: on every character that is not a
// letter or a digit, at lower-to-upper case changes ("getUser" → get,
// user), before the last capital of a run of capitals ("HTTPServer" →
// http, server) and between letters and digits ("s3bucket" → s, 3,
// bucket). Each word is reduced to a simple singular (see stem).
func Tokens(s string) []string {
	var out []string
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, stem(strings.ToLower(s[start:end])))
		}
		start = -1
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = 0
			continue
		}
		if start >= 0 {
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush(i)
			case unicode.IsUpper(prev) && unicode.IsLower(r) && i-start > utf8.RuneLen(prev):
				// "HTTPServer": the S starts the next word.
				flush(i - utf8.RuneLen(prev))
				start = i - utf8.RuneLen(prev)
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(s))
	return out
}

// stem reduces a lowercase word to a simple singular, so that "files"
// matches "file" and "entries" matches "entry" as whole words. It is
// deliberately weak (no verb forms): a wrong merge costs more than a
// missed one, which a prefix match still finds.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		return w[:n-1]
	}
	return w
}

// stopWords are query words that say nothing about which tool is meant;
// they are dropped from queries that have other words.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "for": true, "of": true, "and": true, "or": true,
	"in": true, "on": true, "with": true, "by": true, "from": true, "my": true, "me": true, "i": true,
	"is": true, "it": true, "that": true, "this": true, "some": true, "all": true, "tool": true, "how": true,
}
