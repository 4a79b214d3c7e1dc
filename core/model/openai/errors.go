package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/starweaver-go/starweaver/core/model"
)

// missingKey is the error every request of a model built from a Config
// without a key for OpenAI fails with, naming the variable to set.
func (o *resolved) missingKey() error {
	return &model.ProviderError{
		Provider: o.provider,
		Code:     "missing_api_key",
		Message:  "no API key: set OPENAI_API_KEY or pass api_key= (Go: Config.APIKey); a custom base URL, such as a local server, needs none",
	}
}

// providerError turns a failed SDK call into a *model.ProviderError. The
// message is the provider's own (its error body), never the request; the
// model's Redactor masks any credential a server echoed (see redact).
// Context errors stay context errors, wrapped in model.ErrModel, so that
// errors.Is(err, context.Canceled) still holds.
func (o *resolved) providerError(err error) error {
	if err == nil {
		return nil
	}
	var pe *model.ProviderError
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s request: %w", model.ErrModel, o.provider, err)
	}
	if pe := model.ProviderTimeout(o.provider, err); pe != nil {
		return pe
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		code := apiErr.Code
		if code == "" {
			code = apiErr.Type
		}
		msg := apiErr.Message
		if msg == "" {
			msg = apiErr.Error()
		}
		if apiErr.Response != nil {
			if note := o.policy.Describe(apiErr.Response.Header); note != "" {
				msg += " (" + note + ")"
			}
		}
		if apiErr.StatusCode == http.StatusUnauthorized && o.keyless {
			env := o.profile.apiKeyEnv()
			msg += " (no API key was sent: " + env + " is unset; set it, or pass api_key= (Go: Config.APIKey))"
		}
		return &model.ProviderError{Provider: o.provider, StatusCode: apiErr.StatusCode, Code: code, Message: msg}
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return &model.ProviderError{Provider: o.provider, Code: "stream_error", Message: se.Message}
	}
	// A transport failure (after the retries): its text names the URL and
	// the cause, never headers.
	return &model.ProviderError{Provider: o.provider, Code: "connection_error", Message: err.Error()}
}

// errEmpty is returned for a response without any part.
func (o *resolved) errEmpty() error {
	return fmt.Errorf("%w: %s returned an empty response (no text, tool call, refusal or reasoning)", model.ErrModel, o.provider)
}

// errIncompleteStream is returned when a stream ends before the provider
// said the response was complete (a dropped connection).
func (o *resolved) errIncompleteStream(cause error) error {
	msg := "the response stream ended before the response was complete (connection dropped?)"
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &model.ProviderError{Provider: o.provider, Code: "stream_incomplete", Message: msg}
}

// streamError classifies the error that ended a stream: the provider's
// (an HTTP error before the first event, or an error event), the context's,
// or a dropped connection.
func (o *resolved) streamError(err error) error {
	var apiErr *sdk.Error
	var se *ssestream.StreamError
	var te *model.TimeoutError
	if errors.As(err, &apiErr) || errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return o.providerError(err)
	}
	return o.errIncompleteStream(err)
}
