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
// response body; the message is the API's own.
func (m *Model) requestError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w: %s: request ended: %w", model.ErrModel, m.provider, context.Cause(ctx))
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		return &model.ProviderError{Provider: m.provider, StatusCode: apiErr.StatusCode, Code: string(apiErr.Type()), Message: msg}
	}
	code := "connection_error"
	if m.streaming {
		code = "stream_error"
	}
	return &model.ProviderError{Provider: m.provider, Code: code, Message: err.Error()}
}
