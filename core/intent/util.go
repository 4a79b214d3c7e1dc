package intent

import (
	"net/url"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

// path joins parts into a journal key, each path-escaped, so that two
// different part lists never give one key.
func path(prefix string, parts ...string) string {
	b := []byte(prefix)
	for _, p := range parts {
		b = append(b, '/')
		b = append(b, url.PathEscape(p)...)
	}
	return string(b)
}
