package openai

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// closeCount is a response body that counts its closes.
type closeCount struct {
	io.Reader
	closes int
}

func (c *closeCount) Close() error { c.closes++; return nil }

func eventsOf(body string) (*events[chatCompletion], *closeCount) {
	b := &closeCount{Reader: strings.NewReader(body)}
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: b}
	return newEvents(ssestream.NewDecoder(res), nil, decodeChat), b
}

// events ends the stream as the SDK's Stream does: at [DONE] (the rest
// unread), at an event holding an error (an *ssestream.StreamError), at
// malformed data; each closes the body once.
func TestEventsEndings(t *testing.T) {
	s, body := eventsOf("data: {\"id\":\"a\",\"model\":\"m\"}\n\ndata: [DONE]\n\ndata: {\"id\":\"b\"}\n\n")
	var ids []string
	for s.Next() {
		ids = append(ids, s.Current().ID)
	}
	if s.Err() != nil || len(ids) != 1 || ids[0] != "a" || s.Current().Model != "m" {
		t.Fatalf("ids %v, err %v", ids, s.Err())
	}
	s.Close()
	if body.closes != 1 || s.Next() {
		t.Fatalf("closes %d", body.closes)
	}

	s, body = eventsOf("data: {\"id\":\"a\"}\n\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n")
	for s.Next() {
	}
	var se *ssestream.StreamError
	if !errors.As(s.Err(), &se) || !strings.Contains(se.Message, "overloaded") || body.closes != 1 {
		t.Fatalf("err %v, closes %d", s.Err(), body.closes)
	}

	s, body = eventsOf("data: {\"id\":\n\n")
	if s.Next() || !errors.Is(s.Err(), errMalformed) || body.closes != 1 {
		t.Fatalf("err %v, closes %d", s.Err(), body.closes)
	}

	failed := errors.New("refused")
	s = newEvents[chatCompletion](nil, failed, decodeChat)
	if s.Next() || s.Err() != failed {
		t.Fatalf("err %v", s.Err())
	}
}
