package google

import (
	"io"
	"strings"
	"testing"
)

// The filter drops comment lines and the blank line of an event made of
// comments only, and passes everything else byte for byte.
func TestCommentFilter(t *testing.T) {
	for in, want := range map[string]string{
		": keep-alive\n\n: keep-alive\r\n\r\ndata: {}\n\n: x\n\n": "data: {}\n\n",
		"data: {\"a\":1}\r\n\r\ndata: {}\r\n\r\n":                 "data: {\"a\":1}\r\n\r\ndata: {}\r\n\r\n",
		": c\ndata: {}\n\n": "data: {}\n\n",
		"data: {}\n: c\n\n": "data: {}\n\n",
		": " + strings.Repeat("x", 10000) + "\n\ndata: {}\n\n": "data: {}\n\n",
		"data: " + strings.Repeat("y", 10000) + "\n\n":         "data: " + strings.Repeat("y", 10000) + "\n\n",
		"data: {}": "data: {}",
	} {
		b, err := io.ReadAll(newCommentFilter(io.NopCloser(strings.NewReader(in))))
		if err != nil || string(b) != want {
			t.Errorf("%.40q: got %.40q, %v", in, b, err)
		}
	}
}
