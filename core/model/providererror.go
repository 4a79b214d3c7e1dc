package model

import "fmt"

// ProviderError is a request a provider refused or failed: its HTTP status,
// the provider's error type or code, and its message. It never carries
// credentials: the providers pass every error through a [Redactor].
// Providers return it once their retries (see [HTTPPolicy]) are spent, or
// at once for errors a retry cannot fix (400, 401, 403, 404, a context too
// long) and for a Retry-After above the cap; a bound of [HTTPBounds] that
// passes gives Code "connect_timeout", "first_byte_timeout" or
// "idle_timeout". errors.Is(err, ErrModel) holds.
type ProviderError struct {
	Provider   string `json:"provider"`
	StatusCode int    `json:"status_code,omitempty"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message"`
}

func (e *ProviderError) Error() string {
	s := fmt.Sprintf("%v: %s", ErrModel, e.Provider)
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" returned HTTP %d", e.StatusCode)
	}
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is makes errors.Is(err, ErrModel) hold.
func (e *ProviderError) Is(target error) bool { return target == ErrModel }
