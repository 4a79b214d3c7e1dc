package openai

import (
	"bytes"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/tidwall/gjson"
)

// events reads the events of a streamed response as the SDK's
// ssestream.Stream does ("[DONE]" ends it, an event holding an "error"
// fails it with an *ssestream.StreamError, the decoder's error ends it),
// but hands each event's data to the package's decoder directly: Stream
// goes through encoding/json, which scans each event twice (validating,
// then skipping it) before calling the decoder, which checks it again;
// that made a streamed response cost two to three times a whole one.
type events[T any] struct {
	dec    ssestream.Decoder
	decode func([]byte, *T) error
	cur    T
	err    error
	closed bool
}

// newEvents reads dec's events with decode; err (the request's) ends the
// stream before its first event.
func newEvents[T any](dec ssestream.Decoder, err error, decode func([]byte, *T) error) *events[T] {
	return &events[T]{dec: dec, err: err, decode: decode}
}

// Next decodes the next event into Current, reporting false at the end
// of the stream or on an error (then in Err).
func (s *events[T]) Next() bool {
	if s.err != nil || s.closed || s.dec == nil {
		s.Close()
		return false
	}
	if !s.dec.Next() {
		s.err = s.dec.Err()
		s.Close()
		return false
	}
	ev := s.dec.Event()
	if bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
		s.Close()
		return false
	}
	if ep := gjson.GetBytes(ev.Data, "error"); ep.Exists() {
		s.err = &ssestream.StreamError{Message: "received error while streaming: " + ep.String(), Event: ev}
		s.Close()
		return false
	}
	var next T
	if err := s.decode(ev.Data, &next); err != nil {
		s.err = err
		s.Close()
		return false
	}
	s.cur = next
	return true
}

// Current is the event Next decoded.
func (s *events[T]) Current() T { return s.cur }

// Err is the error that ended the stream, if any.
func (s *events[T]) Err() error { return s.err }

// Close releases the decoder (and the response body); it may be called
// more than once.
func (s *events[T]) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.dec != nil {
		_ = s.dec.Close()
	}
}
