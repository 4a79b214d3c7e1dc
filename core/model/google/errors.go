package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// statusError maps a response with an error status onto a
// *model.ProviderError: its HTTP status, the API's error status string
// ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"...) as Code and its message;
// a body that is not the API's error object (a proxy's page) keeps the
// status, a Code derived from it and a bounded message.
func (m *Model) statusError(res *http.Response, body []byte) error {
	var e struct {
		Error *genai.APIError `json:"error"`
	}
	apiErr := genai.APIError{Code: res.StatusCode, Message: strings.TrimSpace(string(body))}
	if json.Unmarshal(body, &e) == nil && e.Error != nil {
		apiErr = *e.Error
		apiErr.Code = res.StatusCode
	}
	pe := m.apiError(apiErr)
	if note := m.policy.Describe(res.Header); note != "" {
		pe.Message += " (" + note + ")"
	}
	return pe
}

// apiError is the *model.ProviderError of an API error (from an error
// status or an error event of a stream, whose status is its code).
func (m *Model) apiError(e genai.APIError) *model.ProviderError {
	status, code := e.Code, e.Status
	if code == "" {
		code = codeOfStatus[status]
	} else if status == 0 {
		status = statusOfCode[code]
	}
	msg := e.Message
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "..."
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &model.ProviderError{Provider: m.provider, StatusCode: status, Code: code, Message: msg}
}

// requestError maps a failed request onto the package's errors: the
// context's error when ctx is done, the ProviderError of an API error
// event, and a ProviderError with Code "connection_error" (or
// "stream_error" for a stream that broke or ended early) for transport
// failures. Errors the package made itself (a malformed response) pass
// unchanged.
func (m *Model) requestError(ctx context.Context, err error, streamed bool) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s: request ended: %w", model.ErrModel, m.provider, context.Cause(ctx))
	}
	if pe := model.ProviderTimeout(m.provider, err); pe != nil {
		return pe
	}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return m.apiError(apiErr)
	}
	if errors.Is(err, model.ErrModel) {
		return err
	}
	code := "connection_error"
	var se *streamError
	if streamed && errors.As(err, &se) {
		code = "stream_error"
	}
	return &model.ProviderError{Provider: m.provider, Code: code, Message: err.Error()}
}

// maxMessage bounds the message of an error whose body was not the API's
// JSON (a proxy's HTML page).
const maxMessage = 1000

// statusOfCode is the HTTP status Google's API design guide gives each
// error status (https://cloud.google.com/apis/design/errors); it names the
// status of an error event that carries none.
var statusOfCode = map[string]int{
	"INVALID_ARGUMENT":    400,
	"FAILED_PRECONDITION": 400,
	"OUT_OF_RANGE":        400,
	"UNAUTHENTICATED":     401,
	"PERMISSION_DENIED":   403,
	"NOT_FOUND":           404,
	"ABORTED":             409,
	"ALREADY_EXISTS":      409,
	"RESOURCE_EXHAUSTED":  429,
	"CANCELLED":           499,
	"INTERNAL":            500,
	"UNKNOWN":             500,
	"DATA_LOSS":           500,
	"NOT_IMPLEMENTED":     501,
	"UNAVAILABLE":         503,
	"DEADLINE_EXCEEDED":   504,
}

// codeOfStatus is the error status of an HTTP status whose body was not
// the API's JSON.
var codeOfStatus = map[int]string{
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	409: "ABORTED",
	429: "RESOURCE_EXHAUSTED",
	499: "CANCELLED",
	500: "INTERNAL",
	501: "NOT_IMPLEMENTED",
	502: "UNAVAILABLE",
	503: "UNAVAILABLE",
	504: "DEADLINE_EXCEEDED",
}
