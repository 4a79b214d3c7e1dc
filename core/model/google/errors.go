package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
)

// requestError maps a failed request onto the package's errors: the
// context's error when ctx is done, a *model.ProviderError for an API
// error (its status string, "INVALID_ARGUMENT" or "RESOURCE_EXHAUSTED", as
// Code), and a ProviderError with Code "connection_error" or
// "stream_error" for transport failures. Errors the package made itself
// (a request it cannot encode, a malformed response) pass unchanged.
func (m *Model) requestError(ctx context.Context, err error, streamed bool, n *note) error {
	if errors.Is(err, model.ErrModel) {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s: request ended: %w", model.ErrModel, m.provider, context.Cause(ctx))
	}
	if pe := model.ProviderTimeout(m.provider, err); pe != nil {
		return pe
	}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		status := apiErr.Code
		code := apiErr.Status
		if code == "" || strings.ContainsRune(code, ' ') {
			// A body that was not the API's JSON: Status is the HTTP
			// status line.
			code = codeOfStatus[status]
		} else if status == 0 {
			status = statusOfCode[code]
		}
		msg := apiErr.Message
		if len(msg) > maxMessage {
			msg = msg[:maxMessage] + "..."
		}
		if msg == "" {
			msg = http.StatusText(status)
		}
		if s := n.get(); s != "" {
			msg += " (" + s + ")"
		}
		return &model.ProviderError{Provider: m.provider, StatusCode: status, Code: code, Message: msg}
	}
	code := "connection_error"
	var se *streamError
	if streamed && (errors.As(err, &se) || errors.Is(err, errStreamCut)) {
		code = "stream_error"
	}
	return &model.ProviderError{Provider: m.provider, Code: code, Message: err.Error()}
}

// maxMessage bounds the message of an error whose body was not the API's
// JSON (a proxy's HTML page is quoted whole by the SDK).
const maxMessage = 1000

// statusOfCode is the HTTP status Google's API design guide gives each
// error status (https://cloud.google.com/apis/design/errors); it names the
// status of an error that arrives inside a stream without one.
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
// the API's JSON (a proxy's page).
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
