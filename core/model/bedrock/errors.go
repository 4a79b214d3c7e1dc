package bedrock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/starweaver-go/starweaver/core/model"
)

// requestError maps a failed request onto the package's errors: the
// context's error when ctx is done; the package's own errors as they are;
// a *model.ProviderError for an API error (its HTTP status, the exception
// name as Code, the API's message), for an exception event of a stream
// (the status the API reference gives that exception), and with Code
// "connection_error", "credentials_error" or "stream_error" for the rest.
func (m *Model) requestError(ctx context.Context, err error, streamed bool) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s: request ended: %w", model.ErrModel, m.provider, context.Cause(ctx))
	}
	if pe := model.ProviderTimeout(m.provider, err); pe != nil {
		return pe
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code, msg := apiErr.ErrorCode(), apiErr.ErrorMessage()
		status := 0
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			status = re.HTTPStatusCode()
			if re.Response != nil {
				if note := m.policy.Describe(re.Response.Header); note != "" {
					msg += " (" + note + ")"
				}
			}
		}
		if status == 0 || status == http.StatusOK {
			// An exception event inside a stream that began with 200 OK.
			status = exceptionStatus[code]
		}
		if msg == "" {
			msg = http.StatusText(status)
		}
		return &model.ProviderError{Provider: m.provider, StatusCode: status, Code: code, Message: msg}
	}
	var se *streamError
	if errors.As(err, &se) {
		return &model.ProviderError{Provider: m.provider, Code: "stream_error", Message: se.Error()}
	}
	if errors.Is(err, model.ErrModel) {
		return err
	}
	text := err.Error()
	if strings.Contains(text, "retrieve credentials") || strings.Contains(text, "refresh cached credentials") {
		return &model.ProviderError{Provider: m.provider, Code: "credentials_error",
			Message: "no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE): " + text}
	}
	code := "connection_error"
	if streamed {
		code = "stream_error"
	}
	return &model.ProviderError{Provider: m.provider, Code: code, Message: text}
}

// exceptionStatus is the HTTP status the Converse and ConverseStream API
// reference gives each exception
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors);
// it names the status of an exception that arrives as an event of a
// stream.
var exceptionStatus = map[string]int{
	"ValidationException":           400,
	"AccessDeniedException":         403,
	"ResourceNotFoundException":     404,
	"ModelTimeoutException":         408,
	"ModelErrorException":           424,
	"ModelStreamErrorException":     424,
	"ModelNotReadyException":        429,
	"ThrottlingException":           429,
	"ServiceQuotaExceededException": 400,
	"InternalServerException":       500,
	"ServiceUnavailableException":   503,
}
