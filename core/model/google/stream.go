package google

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// errStreamCut is returned when a stream ends cleanly before a chunk with
// a finish reason.
var errStreamCut = errors.New("the response stream ended before a finish reason")

// streamError is a stream that failed after it began: a transport error
// once chunks arrived, or a stream that ended early.
type streamError struct{ err error }

func (e *streamError) Error() string { return "the response stream broke: " + e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// maxEvent bounds one event of a stream (a chunk holding a large inline
// image is a few megabytes).
const maxEvent = 64 << 20

// readStream reads the server-sent events of streamGenerateContent
// (alt=sse): each event's data is one GenerateContentResponse, or an
// {"error": ...} object; comments, event names and ids are ignored, as the
// SSE rules say. The chunks go to a as they arrive.
func (m *Model) readStream(body io.Reader, a *assembler) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 4<<10), maxEvent)
	var data []byte
	dispatch := func() error {
		if len(data) == 0 {
			return nil
		}
		defer func() { data = data[:0] }()
		if isErrorEvent(data) {
			var e struct {
				Error *genai.APIError `json:"error"`
			}
			if err := json.Unmarshal(data, &e); err == nil && e.Error != nil {
				return *e.Error
			}
		}
		var chunk genai.GenerateContentResponse
		if err := json.Unmarshal(data, &chunk); err != nil {
			return fmt.Errorf("%w: google: malformed stream chunk: %w", model.ErrModel, err)
		}
		return a.add(&chunk)
	}
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		switch {
		case len(line) == 0:
			if err := dispatch(); err != nil {
				return err
			}
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	err := sc.Err()
	if err == nil {
		err = dispatch() // a last event without its blank line
	}
	if err != nil {
		var apiErr genai.APIError
		if a.chunks > 0 && !errors.As(err, &apiErr) && !errors.Is(err, model.ErrModel) {
			return &streamError{err}
		}
		return err
	}
	if a.finish == "" && a.blocked == "" {
		return &streamError{errStreamCut}
	}
	return nil
}

// isErrorEvent reports whether data is an object whose first key is
// "error", as the API's error events are; a chunk never starts so.
func isErrorEvent(data []byte) bool {
	d := bytes.TrimLeft(data, " \t\r\n")
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(d[1:], " \t\r\n"), []byte(`"error"`))
}
