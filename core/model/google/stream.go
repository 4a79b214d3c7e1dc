package google

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// errStreamCut is returned when a stream ends cleanly before a chunk with
// a finish reason.
var errStreamCut = errors.New("the response stream ended before a finish reason")

// streamError is a stream that failed after it began: a transport error
// (not an API error, which keeps its status) once chunks arrived.
type streamError struct{ err error }

func (e *streamError) Error() string { return "the response stream broke: " + e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// stream sends a streamGenerateContent request (?alt=sse) and assembles
// its chunks, reporting deltas (when not nil) as they arrive.
func (m *Model) stream(ctx context.Context, contents []*genai.Content, cfg *genai.GenerateContentConfig, deltas model.DeltaHandler) (model.Message, error) {
	a := assembler{deltas: deltas}
	for chunk, err := range m.client.Models.GenerateContentStream(ctx, m.name, contents, cfg) {
		if err != nil {
			var apiErr genai.APIError
			if a.chunks > 0 && !errors.As(err, &apiErr) {
				return model.Message{}, &streamError{err}
			}
			return model.Message{}, err
		}
		if err := a.add(chunk); err != nil {
			return model.Message{}, err
		}
	}
	if a.finish == "" && a.blocked == "" {
		return model.Message{}, errStreamCut
	}
	msg, err := m.message(&a)
	if err != nil {
		return model.Message{}, fmt.Errorf("google: %w", err)
	}
	return msg, nil
}
