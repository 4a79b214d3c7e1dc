package bedrock_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func providerError(t *testing.T, err error) *model.ProviderError {
	t.Helper()
	var pe *model.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *model.ProviderError", err, err)
	}
	if !errors.Is(err, model.ErrModel) {
		t.Fatalf("errors.Is(err, model.ErrModel) = false")
	}
	if strings.Contains(err.Error(), testSecret) || strings.Contains(pe.Message, testSecret) {
		t.Fatalf("error carries the secret key: %v", err)
	}
	return pe
}
