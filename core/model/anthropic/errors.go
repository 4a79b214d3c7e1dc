package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/starweaver-go/starweaver/core/model"
)

// requestError maps a failed request onto the package's errors: the
// context's error when ctx is done, a *model.ProviderError for an API
// error (its type as Code), and a ProviderError with Code
// "connection_error" or "stream_error" for transport failures. The SDK's
// error text is not used as is for API errors: it quotes the whole
// response body; the message is the API's own. The model's Redactor masks
// any credential a server echoed (see redact).
func (m *Model) requestError(ctx context.Context, err error, streamed bool) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s: request ended: %w", model.ErrModel, m.provider, context.Cause(ctx))
	}
	if pe := model.ProviderTimeout(m.provider, err); pe != nil {
		return pe
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		if apiErr.Response != nil {
			if note := m.policy.Describe(apiErr.Response.Header); note != "" {
				msg += " (" + note + ")"
			}
		}
		if apiErr.StatusCode == http.StatusUnauthorized && m.keyless {
			msg += " (no API key was sent: " + EnvAPIKey + " is unset; set it, or pass api_key= (Go: Config.APIKey))"
		}
		status := apiErr.StatusCode
		if status < 400 {
			// An error event inside a stream that began with 200 OK.
			status = errorTypeStatus[string(apiErr.Type())]
		}
		return &model.ProviderError{Provider: m.provider, StatusCode: status, Code: string(apiErr.Type()), Message: msg}
	}
	code := "connection_error"
	if streamed {
		code = "stream_error"
	}
	return &model.ProviderError{Provider: m.provider, Code: code, Message: err.Error()}
}

// errorTypeStatus is the HTTP status Anthropic's error reference gives each
// error type (https://docs.anthropic.com/en/api/errors); it names the
// status of an error that arrives as an event of a stream.
var errorTypeStatus = map[string]int{
	"invalid_request_error": 400,
	"authentication_error":  401,
	"billing_error":         402,
	"permission_error":      403,
	"not_found_error":       404,
	"request_too_large":     413,
	"rate_limit_error":      429,
	"api_error":             500,
	"timeout_error":         504,
	"overloaded_error":      529,
}
